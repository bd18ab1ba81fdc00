'use strict'

exports.slug = function slug (text) {
  return text.trim().toLowerCase().replace(/\s+/g, '-')
}

exports.words = function words (text) {
  return text.trim().split(/\s+/).length
}
