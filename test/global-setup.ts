// Once per test run, before any worker starts: Chromium for the report tests (installed when
// missing and possible), so parallel test files never race two apt-get runs.
import type { TestProject } from 'vitest/node';
import { ensureChromium, type ChromiumAvailability } from './report/chromium.js';

declare module 'vitest' {
  export interface ProvidedContext {
    chromium: ChromiumAvailability;
  }
}

export default function setup(project: TestProject): void {
  project.provide('chromium', ensureChromium());
}
