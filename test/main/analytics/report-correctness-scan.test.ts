import { reportCorrectnessSuite } from './report-correctness.ts';

reportCorrectnessSuite('scan');
