package mathx

import "testing"

func TestAdd(t *testing.T) {
	for _, c := range []struct {
		name    string
		a, b, s int
	}{{"small", 2, 2, 4}, {"negative", -1, 1, 0}} {
		t.Run(c.name, func(t *testing.T) {
			if got := Add(c.a, c.b); got != c.s {
				t.Fatalf("Add(%d, %d) = %d", c.a, c.b, got)
			}
		})
	}
}

func TestSub(t *testing.T) {
	if Sub(3, 1) != 2 {
		// A newer toolchain's vet rejects this format (it built in its day): vet's findings
		// are not test results.
		t.Fatalf("sub %d", "two")
	}
}
