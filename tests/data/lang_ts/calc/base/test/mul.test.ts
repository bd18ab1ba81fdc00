import { describe, expect, it } from "vitest";
import { mul } from "../src/calc";

describe("mul", () => {
  it("multiplies", () => {
    expect(mul(2, 3)).toBe(6);
  });
});
