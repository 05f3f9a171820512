import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chosenPath, openRecordingDialogOptions } from './open-dialog-options.js';

test('the open dialog offers every openable recording by its last extension, one file at a time', () => {
  const options = openRecordingDialogOptions();
  assert.deepEqual(options.properties, ['openFile']);
  assert.deepEqual(options.filters[0], { name: 'Recordings', extensions: ['clrscope', 'nettrace', 'json', 'gz', 'pb', 'pprof'] });
  assert.deepEqual(options.filters[1], { name: 'All files', extensions: ['*'] });
});

test('a cancelled dialog gives null, a chosen file its path', () => {
  assert.equal(chosenPath({ canceled: true, filePaths: [] }), null);
  assert.equal(chosenPath({ canceled: false, filePaths: [] }), null);
  assert.equal(chosenPath({ canceled: false, filePaths: ['/tmp/a.clrscope'] }), '/tmp/a.clrscope');
});
