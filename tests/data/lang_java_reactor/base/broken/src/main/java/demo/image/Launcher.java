package demo.image;

import demo.Calc;

public final class Launcher {
    public static void main(String[] args) {
        System.out.println(Calc.abs(Integer.parseInt(args[0])));
    }
}
