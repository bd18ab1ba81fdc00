package demo;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class CalcTest {
    @Test
    public void absOfPositive() {
        assertEquals(3, Calc.abs(3));
    }

    @Test
    public void absOfNegative() {
        assertEquals(3, Calc.abs(-3));
    }
}
