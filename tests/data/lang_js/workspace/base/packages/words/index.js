'use strict'

exports.words = function words (text) {
  return text.trim().split(/\s+/)
}
