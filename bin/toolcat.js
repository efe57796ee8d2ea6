#!/usr/bin/env node
// The CLI runs the compiled output (npm ci runs `prepare`, which builds it).
require('../dist/src/cli/main.js');
