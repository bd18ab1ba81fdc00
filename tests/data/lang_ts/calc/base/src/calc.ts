export function clamp(x: number, lo: number, hi: number): number {
  if (x < lo) {
    return lo;
  }
  return x;
}

export function mul(a: number, b: number): number {
  return a * b;
}
