package strs

import "testing"

func TestTwice(t *testing.T) {
	if Twice("a") != "aa" {
		t.Fatal("twice")
	}
}
