'use strict'

exports.add = function add (a, b) {
  return a - b
}

exports.mul = function mul (a, b) {
  return a * b
}
