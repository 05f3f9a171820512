import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UserError } from '../services/errors/user-error.js';
import { planRecord, type RecordPlan } from './record-command.js';
import { refusal } from './record-refusal.test-support.js';
import { requestsRateOption } from './requests-rate-option.js';


const plan = (argv: string[]): RecordPlan => planRecord([...argv, '--', 'dotnet', 'app.dll']) as RecordPlan;

test('--requests-rate takes all or a whole number of requests a second from 1 to 1,000,000', () => {
  assert.equal(requestsRateOption(undefined, true), undefined);
  assert.equal(requestsRateOption(undefined, false), undefined);
  assert.equal(requestsRateOption('all', true), 'all');
  assert.equal(requestsRateOption('1', true), 1);
  assert.equal(requestsRateOption('166', true), 166);
  assert.equal(requestsRateOption('1000000', true), 1_000_000);
});

test('--requests-rate refuses, in one sentence, anything else and any use without --requests', () => {
  const range = (v: string): string => `--requests-rate takes all or a whole number of requests a second from 1 to 1000000, not '${v}'.`;
  for (const v of ['0', '1000001', '12.5', '1e3', '0x10', '-5', 'ALL', 'none', ' 5', '99999999999']) {
    assert.throws(() => requestsRateOption(v, true), (err: unknown) => err instanceof UserError && err.message === range(v), v);
  }
  assert.throws(() => requestsRateOption('', true), /^UserError: --requests-rate needs all or a number of requests a second; it was given an empty one\.$/);
  assert.equal(refusal(['--requests-rate', '100', '--', 'dotnet', 'app.dll']), '--requests-rate sets how many HTTP requests a second --requests records: give it with --requests.');
  // Without --requests even a good value is refused, before its own check.
  assert.equal(refusal(['--requests-rate', 'x', '--', 'dotnet', 'app.dll']), '--requests-rate sets how many HTTP requests a second --requests records: give it with --requests.');
  assert.equal(refusal(['--requests', '--requests-rate', '0', '--', 'dotnet', 'app.dll']), range('0'));
  assert.equal(refusal(['--requests', '--requests-rate', '-3', '--', 'dotnet', 'app.dll']), range('-3'));
  assert.equal(refusal(['--requests', '--requests-rate']), '--requests-rate needs all or a number of requests a second after it (see clrscope record --help).');
});

test('record passes the rate in its event switches, at a launch and an attach alike; absent, none', () => {
  assert.equal(plan(['--requests', '--requests-rate', 'all']).events?.requestsRate, 'all');
  assert.equal(plan(['--requests', '--requests-rate', '250']).events?.requestsRate, 250);
  assert.equal((planRecord(['--pid', '1234', '--requests', '--requests-rate', '40']) as RecordPlan).events?.requestsRate, 40);
  const none = plan(['--requests']).events;
  assert.equal(none?.requests, true);
  assert.equal(none !== undefined && 'requestsRate' in none, false);
});
