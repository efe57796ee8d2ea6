import { type ReactNode, useState } from 'react';
import { deriveAnnotations } from '../../../src/catalog/annotations';
import type { Classification, ToolAnnotations } from '../../../src/catalog/descriptor';
import { request } from '../api';
import { type ResultOf, graphql } from '../graphql';
import { ErrorNote, Json, Loading, useAction, useLoad } from '../ui';

const ReviewQuery = graphql(`
  query Review {
    adminTools {
      toolId source origin classified claims claimsRedacted
      descriptor { name source safetyTier replayPolicy egress annotations { readOnlyHint destructiveHint idempotentHint openWorldHint } }
    }
    sources { name }
  }
`);
const UpstreamQuery = graphql(`
  query ReviewUpstream($source: String!) {
    upstreamTools(source: $source) { key name toolId quarantineReason reviewState claims }
  }
`);
const ClassifyMutation = graphql(`
  mutation Classify($input: ClassifyToolInput!) {
    classifyTool(input: $input) { toolId classified descriptor { annotations { readOnlyHint destructiveHint idempotentHint openWorldHint } } }
  }
`);
const ApproveMutation = graphql(`
  mutation Approve($toolId: String!) { approveTool(toolId: $toolId) }
`);

type AdminTool = ResultOf<typeof ReviewQuery>['adminTools'][number];
type Upstream = ResultOf<typeof UpstreamQuery>['upstreamTools'][number] & { source: string };

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;
/** The value of each hint that lets an agent do more without asking; a claim of it over a stricter decision is "more permissive". */
const PERMISSIVE: Readonly<Record<(typeof HINTS)[number], boolean>> = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

function permissiveClaims(claims: unknown, decided: ToolAnnotations): string[] {
  if (!claims || typeof claims !== 'object') return [];
  const c = claims as Record<string, unknown>;
  return HINTS.filter((h) => c[h] === PERMISSIVE[h] && decided[h] !== PERMISSIVE[h]);
}

async function loadReview(): Promise<{ tools: AdminTool[]; upstream: Upstream[] }> {
  const r = await request(ReviewQuery, {});
  const upstream = await Promise.all(r.sources.map(async (s) => (await request(UpstreamQuery, { source: s.name })).upstreamTools.map((u) => ({ ...u, source: s.name }))));
  return { tools: r.adminTools, upstream: upstream.flat() };
}

export function ReviewPage(): ReactNode {
  const { data, error, loading, reload } = useLoad(loadReview, 'review');
  const mcp = data?.tools.filter((t) => t.descriptor.source === 'mcp') ?? [];
  const unclassified = mcp.filter((t) => !t.classified);
  const permissive = mcp.filter((t) => t.classified && permissiveClaims(t.claims, t.descriptor.annotations).length > 0);
  const drifted = data?.upstream.filter((u) => u.reviewState === 'pending') ?? [];
  const quarantined = data?.upstream.filter((u) => u.quarantineReason !== null) ?? [];
  return (
    <>
      <Loading on={loading} />
      <ErrorNote error={error} />
      <section aria-labelledby="unclassified-h">
        <h2 id="unclassified-h">Unclassified MCP tools ({unclassified.length})</h2>
        <p className="muted">Served as write until the host decides (TC-DESC-6). The claims are what the server says; the annotations are what agents will receive.</p>
        {unclassified.length === 0 ? <p>None.</p> : unclassified.map((t) => <ClassifyCard key={t.toolId} tool={t} onDone={reload} />)}
      </section>
      <section aria-labelledby="permissive-h">
        <h2 id="permissive-h">Claims more permissive than the decision ({permissive.length})</h2>
        {permissive.length === 0 ? <p>None.</p> : permissive.map((t) => <ClassifyCard key={t.toolId} tool={t} onDone={reload} note={`Claims ${permissiveClaims(t.claims, t.descriptor.annotations).join(', ')} more permissively than decided.`} />)}
      </section>
      <section aria-labelledby="drift-h">
        <h2 id="drift-h">Drift held for review ({drifted.length})</h2>
        {drifted.length === 0 ? <p>None.</p> : drifted.map((u) => <DriftCard key={`${u.source}/${u.key}`} tool={u} onDone={reload} />)}
      </section>
      <section aria-labelledby="quarantine-h">
        <h2 id="quarantine-h">Quarantined tools ({quarantined.length})</h2>
        {quarantined.length === 0 ? (
          <p>None.</p>
        ) : (
          <table>
            <caption className="visually-hidden">Quarantined tools and why</caption>
            <thead>
              <tr><th scope="col">Source</th><th scope="col">Name</th><th scope="col">Reason</th></tr>
            </thead>
            <tbody>
              {quarantined.map((u) => (
                <tr key={`${u.source}/${u.key}`}><td>{u.source}</td><td>{u.name}</td><td>{u.quarantineReason}</td></tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}

function ClassifyCard({ tool, onDone, note }: { tool: AdminTool; onDone: () => void; note?: string }): ReactNode {
  const d = tool.descriptor;
  const [c, setC] = useState<Classification>({ safetyTier: d.safetyTier, replayPolicy: d.replayPolicy, egress: d.egress } as Classification);
  const action = useAction();
  const resulting = deriveAnnotations(c);
  const id = tool.toolId.replace(/[^A-Za-z0-9_-]/g, '_');
  const select = (field: keyof Classification, options: string[]): ReactNode => (
    <label>
      {field}
      <select value={c[field]} onChange={(e) => setC({ ...c, [field]: e.target.value } as Classification)}>
        {options.map((o) => <option key={o}>{o}</option>)}
      </select>
    </label>
  );
  return (
    <article className="card" aria-labelledby={`t-${id}`} data-tool={tool.toolId}>
      <h3 id={`t-${id}`}>{tool.toolId} <span className="muted">from {tool.origin}</span></h3>
      {note ? <p className="warn">{note}</p> : null}
      <div className="side-by-side">
        <div>
          <h4>Upstream claims{tool.claimsRedacted ? ' (redacted)' : ''}</h4>
          <Json value={tool.claims} label={`claims of ${tool.toolId}`} />
        </div>
        <div>
          <h4>Resulting annotations</h4>
          <Annotations value={resulting} label={`resulting annotations of ${tool.toolId}`} />
        </div>
      </div>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          void action.run(() => request(ClassifyMutation, { input: { toolId: tool.toolId, ...c } })).then((ok) => ok && onDone());
        }}
      >
        {select('safetyTier', ['pure', 'read', 'write'])}
        {select('replayPolicy', ['deterministic', 'idempotent', 'non-idempotent'])}
        {select('egress', ['none', 'restricted', 'open'])}
        <button type="submit" disabled={action.busy}>Classify {tool.toolId}</button>
      </form>
      <ErrorNote error={action.error} />
    </article>
  );
}

function Annotations({ value, label }: { value: ToolAnnotations; label: string }): ReactNode {
  return (
    <dl className="hints" aria-label={label}>
      {HINTS.map((h) => (
        <div key={h}><dt>{h}</dt><dd>{String(value[h])}</dd></div>
      ))}
    </dl>
  );
}

function DriftCard({ tool, onDone }: { tool: Upstream; onDone: () => void }): ReactNode {
  const action = useAction();
  return (
    <article className="card" data-drift={tool.toolId ?? tool.key}>
      <h3>{tool.toolId ?? tool.name} <span className="muted">from {tool.source}</span></h3>
      <p>The definition changed after it was classified; it is withheld until approved.</p>
      <Json value={tool.claims} label={`claims of ${tool.name}`} />
      <button type="button" disabled={action.busy || !tool.toolId} onClick={() => void action.run(() => request(ApproveMutation, { toolId: tool.toolId! })).then((ok) => ok && onDone())}>
        Approve {tool.toolId ?? tool.name}
      </button>
      <ErrorNote error={action.error} />
    </article>
  );
}
