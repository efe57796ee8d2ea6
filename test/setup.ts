// Loaded by mocha before every test file (.mocharc.yml).
import 'reflect-metadata';
