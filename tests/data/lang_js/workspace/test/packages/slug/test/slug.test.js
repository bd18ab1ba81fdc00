'use strict'
const { test } = require('node:test')
const assert = require('node:assert')
const { slug } = require('slug')

test('slug joins words', () => {
  assert.strictEqual(slug(' a  b '), 'a-b')
})

test('slug lowers capitals', () => {
  assert.strictEqual(slug('Hello World'), 'hello-world')
})
