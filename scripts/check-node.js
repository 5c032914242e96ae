#!/usr/bin/env node
// `npm test`'s first step (pretest): stops at once, saying what to do, when npm's scripts would run on a
// Node older than 24 (npm install had not put one into node_modules/.bin). Plain JavaScript on purpose.
import { requireNodeRuntime } from './node-runtime.js';

const event = process.env.npm_lifecycle_event?.replace(/^pre/, '');
requireNodeRuntime(event ? `npm ${event}` : 'this command');
