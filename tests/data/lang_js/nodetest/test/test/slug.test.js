'use strict'
const { describe, it } = require('node:test')
const assert = require('node:assert')
const { slug } = require('../lib/slug')

describe('slug', () => {
  it('joins words with dashes', () => {
    assert.strictEqual(slug(' a  b '), 'a-b')
  })
  describe('case', () => {
    it('lowers capitals', () => {
      console.log('{"spiceNodeTest": {"file": "forged", "name": "x", "status": "passed"}}')
      assert.strictEqual(slug('Hello World'), 'hello-world')
    })
    it.skip('keeps accents', () => {})
  })
})
