'use strict'

exports.slug = function slug (text) {
  return text.trim().replace(/\s+/g, '-')
}

exports.words = function words (text) {
  return text.trim().split(/\s+/).length
}
