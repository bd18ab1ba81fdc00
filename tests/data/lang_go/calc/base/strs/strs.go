package strs

func Twice(s string) string { return s + s }
