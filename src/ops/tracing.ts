import type { IncomingMessage } from 'node:http';
import type { ApolloServer, ApolloServerPlugin, BaseContext } from '@apollo/server';
import { type Context, type Span, SpanKind, SpanStatusCode, type Tracer, context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { DataSource, QueryRunner } from 'typeorm';
import { containsCredential } from '../catalog/credentials';
import type { TracingSettings } from '../config/ops-settings';
import { setLogFields } from '../shared/logger';
import { splitTarget } from '../shared/request-target';
import type { SpanAttributes, SpanHooks, TraceRequest } from './tracing-hooks';

/**
 * OpenTelemetry tracing (issue 19), loaded by the composition root only when tracing is configured (standard
 * OTEL_* variables, config/ops-settings.ts), so that with tracing off no OpenTelemetry module, context manager or
 * async hook exists. Spans are made here, by hand, at the few places that matter (no auto-instrumentation patching
 * modules at require time): HTTP requests, GraphQL operations (Apollo's and the REST facade's fixed documents),
 * database queries (TypeORM query runners, only inside a traced operation), syncs and tool calls. W3C trace context
 * comes in from callers' `traceparent`/`tracestate` headers and goes out to upstream MCP servers in `_meta`
 * (SEP-414). Log lines written inside a span carry its trace_id and span_id.
 *
 * One SDK per process (OpenTelemetry's providers are process-global): the first start wins, later ones share it.
 */
export interface Tracing extends SpanHooks {
  readonly traceRequest: TraceRequest;
  /** Spans for every query of this data source made inside a traced operation. */
  instrumentDataSource(ds: DataSource): void;
  /** A span per operation of this Apollo server (before `start()`); database spans nest under it. */
  instrumentApollo<C extends BaseContext>(apollo: ApolloServer<C>): void;
  /** A span per `execute` of the REST facade's fixed GraphQL documents. */
  tracedExecutor<E extends { execute(query: string, variables: Record<string, unknown>, ctx: never): Promise<unknown> }>(exec: E): E;
  shutdown(): Promise<void>;
}

let started: { sdk: NodeSDK; tracing: Tracing; users: number } | null = null;

/** Starts tracing (or joins the process's). `spanProcessor` replaces the OTLP exporter (tests: an in-memory one). */
export function startTracing(settings: TracingSettings, opts: { spanProcessor?: SpanProcessor } = {}): Tracing {
  if (started) {
    started.users++;
    return started.tracing;
  }
  const sdk = new NodeSDK({
    serviceName: settings.serviceName,
    // The exporter reads OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT/HEADERS/TIMEOUT itself (the standard variables).
    spanProcessors: [opts.spanProcessor ?? new BatchSpanProcessor(new OTLPTraceExporter())],
    contextManager: new AsyncLocalStorageContextManager(),
    textMapPropagator: new W3CTraceContextPropagator(),
    instrumentations: [],
    resourceDetectors: [],
  });
  sdk.start();
  const tracing = createTracing(trace.getTracer('toolcat'));
  setLogFields(logFields);
  started = { sdk, tracing, users: 1 };
  return tracing;
}

function logFields(): Record<string, string> | null {
  const span = trace.getSpan(context.active());
  if (!span) return null;
  const c = span.spanContext();
  return { trace_id: c.traceId, span_id: c.spanId };
}

const headerGetter = {
  keys: (h: IncomingMessage['headers']) => Object.keys(h),
  get: (h: IncomingMessage['headers'], key: string) => h[key],
};

function createTracing(tracer: Tracer): Tracing {
  const endWith = (span: Span, err: unknown): void => {
    span.recordException(err instanceof Error ? err : String(err));
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : undefined });
    span.end();
  };
  const inSpan = <T>(name: string, attributes: SpanAttributes, fn: () => Promise<T>, parent: Context = context.active(), kind = SpanKind.INTERNAL): Promise<T> => {
    const span = tracer.startSpan(name, { kind, attributes }, parent);
    return context.with(trace.setSpan(parent, span), () => fn()).then(
      (v) => {
        span.end();
        return v;
      },
      (err: unknown) => {
        endWith(span, err);
        throw err;
      },
    );
  };
  const operationNames = new Map<string, string>();
  const operationOf = (query: string): string => {
    let name = operationNames.get(query);
    if (name === undefined) {
      const m = /^\s*(query|mutation|subscription)\s+([A-Za-z_]\w*)/.exec(query);
      name = m ? `${m[1]} ${m[2]}` : 'query';
      if (operationNames.size < 1000) operationNames.set(query, name);
    }
    return name;
  };
  const tracing: Tracing = {
    inSpan: (name, attributes, fn) => inSpan(name, attributes, fn),
    traceMeta() {
      if (!trace.getSpan(context.active())) return null;
      const carrier: Record<string, string> = {};
      propagation.inject(context.active(), carrier);
      if (!carrier.traceparent) return null;
      // The caller's tracestate goes upstream as W3C says, but no member that looks like a credential does (red team,
      // issue 19: `tracestate: k=<api key>` reached the MCP server): no caller token is ever passed upstream.
      if (carrier.tracestate !== undefined) {
        const kept = carrier.tracestate.split(',').filter((member) => !containsCredential(member)).join(',');
        if (kept.trim() === '') delete carrier.tracestate;
        else carrier.tracestate = kept;
      }
      return carrier;
    },
    traceRequest(req, res, route) {
      const parent = propagation.extract(context.active(), req.headers, headerGetter);
      const method = req.method ?? 'GET';
      const span = tracer.startSpan(method, {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': method, 'url.path': splitTarget(req.url).path.slice(0, 300), 'url.scheme': 'http' },
      }, parent);
      let ended = false;
      const end = (): void => {
        if (ended) return;
        ended = true;
        span.setAttribute('http.response.status_code', res.statusCode);
        if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      };
      res.once('finish', end);
      res.once('close', end);
      context.with(trace.setSpan(parent, span), () => route(req, res));
    },
    instrumentDataSource(ds) {
      const system = ds.options.type === 'postgres' ? 'postgresql' : 'sqlite';
      const driver = ds.driver as { createQueryRunner(mode?: string): QueryRunner };
      const create = driver.createQueryRunner.bind(driver);
      const wrapped = new WeakSet<QueryRunner>();
      driver.createQueryRunner = (mode?: string): QueryRunner => {
        const qr = create(mode);
        if (wrapped.has(qr)) return qr;
        wrapped.add(qr);
        const query = qr.query.bind(qr) as (...args: unknown[]) => Promise<unknown>;
        (qr as { query: unknown }).query = (...args: unknown[]): Promise<unknown> => {
          // Only inside a traced operation: the health probe and the version poll would otherwise be a trace a second.
          if (!trace.getSpan(context.active())) return query(...args);
          const sql = String(args[0]);
          const operation = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'QUERY';
          return inSpan(operation, { 'db.system.name': system, 'db.operation.name': operation, 'db.query.text': sql.slice(0, 2000) }, () => query(...args), context.active(), SpanKind.CLIENT);
        };
        return qr;
      };
    },
    instrumentApollo(apollo) {
      // The span is opened around Apollo's whole request (so database spans nest under it) and named by the plugin
      // once the operation is known.
      const server = apollo as unknown as { executeHTTPGraphQLRequest: (...args: unknown[]) => Promise<unknown> };
      const run = server.executeHTTPGraphQLRequest.bind(apollo);
      server.executeHTTPGraphQLRequest = (...args: unknown[]) => inSpan('graphql', { 'graphql.transport': 'http' }, () => run(...args));
      const plugin: ApolloServerPlugin<BaseContext> = {
        async requestDidStart() {
          return {
            async didResolveOperation({ operation, operationName }) {
              const span = trace.getSpan(context.active());
              if (!span || !operation) return;
              span.updateName(`${operation.operation}${operationName ? ` ${operationName}` : ''}`);
              span.setAttribute('graphql.operation.type', operation.operation);
              if (operationName) span.setAttribute('graphql.operation.name', operationName);
            },
            async didEncounterErrors({ errors }) {
              trace.getSpan(context.active())?.setStatus({ code: SpanStatusCode.ERROR, message: errors[0]?.message });
            },
          };
        },
      };
      apollo.addPlugin(plugin as unknown as ApolloServerPlugin<typeof apollo extends ApolloServer<infer X> ? X : never>);
    },
    tracedExecutor(exec) {
      const run = exec.execute.bind(exec);
      return Object.assign(Object.create(exec) as typeof exec, {
        execute: (query: string, variables: Record<string, unknown>, ctx: never) => {
          const name = operationOf(query);
          return inSpan(name, { 'graphql.operation.type': name.split(' ')[0], 'graphql.operation.name': name.split(' ')[1] ?? '', 'graphql.transport': 'rest-facade' }, () => run(query, variables, ctx));
        },
      });
    },
    async shutdown() {
      if (!started || --started.users > 0) return;
      const { sdk } = started;
      started = null;
      setLogFields(null);
      await sdk.shutdown();
      // The SDK leaves its globals registered; a later start (tests) registers them anew.
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
  return tracing;
}
