'use strict'
const assert = require('assert')
const { mul } = require('../lib/calc')

describe('mul', function () {
  it('multiplies', function () {
    assert.strictEqual(mul(2, 3), 6)
  })
})
