// The end screen's charts (static/js/chart.js): axes with round ticks.
import { test } from "node:test";
import assert from "node:assert/strict";

import { roundTicks, niceStep, rangeTicks } from "../../src/marrakech/web/static/js/chart.js";

test("a score axis has round ticks from 0 to just above the highest score", () => {
  assert.deepEqual(roundTicks(46), [0, 10, 20, 30, 40, 50]);
  assert.deepEqual(roundTicks(38), [0, 10, 20, 30, 40]);
  assert.deepEqual(roundTicks(100), [0, 20, 40, 60, 80, 100]);
  assert.deepEqual(roundTicks(7), [0, 2, 4, 6, 8]);
  assert.deepEqual(roundTicks(1), [0, 1]);
});

test("turns along the bottom go by 1, 2, 5, 10...", () => {
  assert.equal(niceStep(30, 6), 5);
  assert.equal(niceStep(31, 6), 10);
  assert.equal(niceStep(4, 6), 1);
  assert.equal(niceStep(45, 6), 10);
});

test("a rating axis has round ticks around the ratings, not from 0", () => {
  assert.deepEqual(rangeTicks(1003, 1187), [1000, 1050, 1100, 1150, 1200]);
  assert.deepEqual(rangeTicks(980, 1012), [980, 990, 1000, 1010, 1020]);
  const one = rangeTicks(1000, 1000);
  assert.ok(one.length >= 2 && one[0] <= 1000 && one[one.length - 1] >= 1000);
});
