package demo;

public final class Calc {
    private Calc() {}

    public static int abs(int x) {
        return x < 0 ? -x : x;
    }
}
