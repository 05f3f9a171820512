import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ownCostLine, ownCostPercent, ownCostTotalNs, programCpuNs, sumOwnCosts } from './own-cost.js';
import type { OwnCost } from '../wire/records.js';

const cost: OwnCost = {
  processCpuNs: 1_100_000_000, handlerNs: 40_000_000, callbacksNs: 5_000_000, runtimeEventsNs: 20_000_000,
  eventStacksNs: 0, symbolsNs: 15_000_000, writerNs: 10_000_000, samplerNs: 10_000_000,
};

test('the parts add up to the total, set against the process CPU less clrscope\'s', () => {
  assert.equal(ownCostTotalNs(cost), 100_000_000);
  assert.equal(programCpuNs(cost), 1_000_000_000);
  assert.equal(ownCostPercent(cost), 10);
  assert.equal(ownCostLine(cost), 'clrscope\'s own cost: 100 ms CPU = 10.0% of the program\'s CPU (handler 40.0, sampler 10.0, symbols 15.0, runtime events 20.0, event stacks 0.00, callbacks 5.00, writer 10.0).');
});

test('a program that used no CPU of its own has no share, and processes sum part by part', () => {
  assert.equal(ownCostPercent({ ...cost, processCpuNs: 50_000_000 }), undefined);
  assert.equal(sumOwnCosts([undefined]), undefined);
  const sum = sumOwnCosts([cost, undefined, cost]);
  assert.equal(sum?.handlerNs, 80_000_000);
  assert.equal(sum?.processCpuNs, 2_200_000_000);
});
