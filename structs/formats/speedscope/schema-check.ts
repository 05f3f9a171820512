// The facts of speedscope's published schema (file-format-schema.json, draft-07), checked by
// hand: the required fields and their types for the file, frames, both profile types and
// events, plus what the schema cannot say but speedscope's importer relies on (one weight per
// sample, frame indexes in range, end not before start). Tests hold our exporter to it;
// returning every problem rather than the first makes a failing test say all that is wrong.

import { SPEEDSCOPE_SCHEMA_URL, SPEEDSCOPE_UNITS } from './speedscope-file.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

export function speedscopeSchemaProblems(file: unknown): string[] {
  const problems: string[] = [];
  const need = (ok: boolean, what: string): boolean => {
    if (!ok) problems.push(what);
    return ok;
  };
  if (!need(isObject(file), 'the file is not an object')) return problems;
  const f = file as Json;
  need(f.$schema === SPEEDSCOPE_SCHEMA_URL, `$schema is ${JSON.stringify(f.$schema)}, not the schema's URL`);
  if ('name' in f) need(typeof f.name === 'string', 'name is not a string');
  if ('exporter' in f) need(typeof f.exporter === 'string', 'exporter is not a string');
  if ('activeProfileIndex' in f) need(isNumber(f.activeProfileIndex), 'activeProfileIndex is not a number');
  let frameCount = 0;
  if (need(isObject(f.shared), 'shared is missing') && need(Array.isArray((f.shared as Json).frames), 'shared.frames is not an array')) {
    const frames = (f.shared as Json).frames as unknown[];
    frameCount = frames.length;
    frames.forEach((fr, i) => {
      if (!need(isObject(fr), `frame ${i} is not an object`)) return;
      const o = fr as Json;
      need(typeof o.name === 'string', `frame ${i} has no string name`);
      if ('file' in o) need(typeof o.file === 'string', `frame ${i}'s file is not a string`);
      if ('line' in o) need(isNumber(o.line), `frame ${i}'s line is not a number`);
      if ('col' in o) need(isNumber(o.col), `frame ${i}'s col is not a number`);
    });
  }
  if (!need(Array.isArray(f.profiles), 'profiles is not an array')) return problems;
  const frameIndex = (v: unknown): boolean => isNumber(v) && Number.isInteger(v) && v >= 0 && v < frameCount;
  (f.profiles as unknown[]).forEach((p, i) => {
    if (!need(isObject(p), `profile ${i} is not an object`)) return;
    const o = p as Json;
    need(o.type === 'sampled' || o.type === 'evented', `profile ${i} has type ${JSON.stringify(o.type)}`);
    need(typeof o.name === 'string', `profile ${i} has no string name`);
    need(SPEEDSCOPE_UNITS.includes(o.unit as never), `profile ${i} has unit ${JSON.stringify(o.unit)}`);
    if (need(isNumber(o.startValue), `profile ${i} has no numeric startValue`) && need(isNumber(o.endValue), `profile ${i} has no numeric endValue`)) {
      need((o.endValue as number) >= (o.startValue as number), `profile ${i} ends before it starts`);
    }
    if (o.type === 'sampled') {
      if (!need(Array.isArray(o.samples), `profile ${i} has no samples array`) || !need(Array.isArray(o.weights), `profile ${i} has no weights array`)) return;
      const samples = o.samples as unknown[];
      const weights = o.weights as unknown[];
      need(samples.length === weights.length, `profile ${i} has ${samples.length} samples but ${weights.length} weights`);
      samples.forEach((s, k) => need(Array.isArray(s) && s.every(frameIndex), `profile ${i} sample ${k} is not a list of frame indexes`));
      weights.forEach((w, k) => need(isNumber(w), `profile ${i} weight ${k} is not a number`));
    } else if (o.type === 'evented') {
      if (!need(Array.isArray(o.events), `profile ${i} has no events array`)) return;
      (o.events as unknown[]).forEach((e, k) => {
        const ok = isObject(e) && (e.type === 'O' || e.type === 'C') && isNumber(e.at) && frameIndex(e.frame);
        need(ok, `profile ${i} event ${k} is not an open or close event of a frame`);
      });
    }
  });
  return problems;
}
