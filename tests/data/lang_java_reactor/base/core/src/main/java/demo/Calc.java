package demo;

public final class Calc {
    private Calc() {}

    public static int abs(int x) {
        return x;
    }
}
