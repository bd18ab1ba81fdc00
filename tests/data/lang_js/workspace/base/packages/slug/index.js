'use strict'
const { words } = require('words')

exports.slug = function slug (text) {
  return words(text).join('-')
}
