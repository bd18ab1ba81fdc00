import { describe, expect, it } from "vitest";
import { clamp } from "../src/calc";

describe("clamp", () => {
  it("caps at hi", () => {
    expect(clamp(9, 0, 5)).toBe(5);
  });
  it("keeps what is inside", () => {
    expect(clamp(3, 0, 5)).toBe(3);
  });
});
