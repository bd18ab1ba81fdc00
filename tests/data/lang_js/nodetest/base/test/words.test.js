'use strict'
const { test } = require('node:test')
const assert = require('node:assert')
const { words } = require('../lib/slug')

test('words counts', () => {
  assert.strictEqual(words(' a b  c '), 3)
})
