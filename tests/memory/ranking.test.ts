// The pure parts of the index's ranking, against plain definitions.
import { describe, expect, it } from "vitest";
import { bestOf, bitCount, lowerBound, mergeSorted } from "../../src/memory/postings.js";

const naiveBitCount = (n: number): number => [...(n >>> 0).toString(2)].filter((bit) => bit === "1").length;

describe("ranking helpers", () => {
  it("counts the set bits of any 32-bit mask, the sign bit included", () => {
    const masks = [0, 1, 3, 0xff, 0x7fffffff, 1 << 31, (1 << 31) | 5, -1, 0x55555555, 0xaaaaaaaa | 0];
    for (let i = 0; i < 2_000; i++) masks.push((Math.random() * 2 ** 32) | 0);
    for (const mask of masks) expect(bitCount(mask), `mask ${mask}`).toBe(naiveBitCount(mask));
  });

  it("picks the best positions as a full sort would, equal scores by lower position", () => {
    const score = Float64Array.from({ length: 500 }, (_, i) => Math.floor(((i * 7919) % 97) / 3));
    const positions = Array.from({ length: 500 }, (_, i) => 499 - i);
    const sorted = [...positions].sort((a, b) => (score[b] as number) - (score[a] as number) || a - b);
    for (const count of [0, 1, 5, 50, 500, 600]) expect(bestOf(positions, count, score)).toEqual(sorted.slice(0, count));
  });

  it("finds where a value goes in a sorted list, and merges two sorted lists without repeats", () => {
    expect(lowerBound(["apple", "fig", "pear"], "banana")).toBe(1);
    expect(lowerBound(Uint32Array.from([2, 4, 4, 9]), 4)).toBe(1);
    expect(lowerBound([1, 2], 3)).toBe(2);
    expect(mergeSorted(["a", "c", "e"], ["b", "c", "f"])).toEqual(["a", "b", "c", "e", "f"]);
  });
});
