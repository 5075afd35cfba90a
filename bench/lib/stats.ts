// Small statistics helpers.

/** The q-quantile (0..1) of `xs` (nearest rank on a sorted copy). */
export function quantile(xs: number[], q: number): number {
  if (!xs.length) return NaN;
  const s = Float64Array.from(xs).sort();
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1));
  return s[i];
}

export const median = (xs: number[]) => quantile(xs, 0.5);

/** High-resolution clock in ms. */
export const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
