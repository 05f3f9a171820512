// What the record command's tests ask of a bad command line: that it is refused with a UserError.
import assert from 'node:assert/strict';
import { UserError } from '../services/errors/user-error.js';
import { planRecord } from './record-command.js';

/** The one sentence a bad record command line gets. */
export function refusal(argv: string[]): string {
  try {
    planRecord(argv);
  } catch (err) {
    assert.ok(err instanceof UserError, `a UserError, not ${String(err)}`);
    return err.message;
  }
  assert.fail(`accepted ${argv.join(' ')}`);
}
