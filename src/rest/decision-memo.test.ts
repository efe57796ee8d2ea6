import { expect } from 'chai';
import { GraphQLError, GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { type Principal, decisionKey } from '../catalog/principal';
import type { GraphQLContext } from '../graphql/context';
import { makeFormatError } from '../graphql/format-error';
import { createLogger } from '../shared/logger';
import { DecisionMemo } from './decision-memo';
import { PreparedExecutor } from './graphql-executor';

const agent = (over: Partial<Principal> = {}): Principal => ({ id: 'p1', kind: 'api-key', tenantId: 't1', tenantName: 'acme', name: 'bot', role: 'agent', groups: [], ...over });
const byKey = (c: GraphQLContext): string => decisionKey(c.principal!);
const ctxOf = (principal: Principal | null): GraphQLContext => ({ principal, requestId: 'r', credentialRejected: false });

describe(DecisionMemo.name, () => {
  let runs = 0;
  let refuse = false;
  // The resolver's answer names the principal's tenant and the run, so a wrongly shared outcome would show.
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({
      name: 'Query',
      fields: {
        who: {
          type: GraphQLString,
          args: { v: { type: GraphQLString } },
          resolve: (_r, a: { v: string | null }, c: GraphQLContext) => {
            runs++;
            if (refuse) return Promise.reject(new GraphQLError('no', { extensions: { code: 'SERVICE_UNAVAILABLE' } }));
            return `${c.principal?.tenantId}/${c.principal?.groups.join('+')}/${a.v}/${runs}`;
          },
        },
      },
    }),
  });
  const exec = new PreparedExecutor(schema, makeFormatError(createLogger('silent')));
  const Q = 'query($v: String) { who(v: $v) }';
  let generation = 1;
  const listeners = new Set<() => void>();
  const change = () => {
    generation++;
    for (const l of listeners) l();
  };
  const memo = () => new DecisionMemo(byKey, () => String(generation), (l) => (listeners.add(l), () => listeners.delete(l)), { maxBytes: 1 << 20, maxBodyBytes: 1 << 16 });
  const who = async (m: DecisionMemo, p: Principal | null, v: string | null = 'x') => (await m.execute(exec, 'who', Q, { v }, ctxOf(p))).data?.who;

  beforeEach(() => {
    runs = 0;
    refuse = false;
    listeners.clear();
  });

  it('executes once per generation and decision key, and again after any catalog change', async () => {
    const m = memo();
    const p = agent();
    expect(await who(m, p)).to.equal('t1//x/1');
    expect(await who(m, p)).to.equal('t1//x/1');
    expect(await who(m, agent())).to.equal('t1//x/1'); // another object with the same decision key: the same decision
    expect(runs).to.equal(1);
    change();
    expect(await who(m, p)).to.equal('t1//x/2');
    expect(runs).to.equal(2);
  });

  it('never shares an outcome across anything the decision depends on: tenant, id, role, groups, variables', async () => {
    const m = memo();
    const answers = [
      await who(m, agent()),
      await who(m, agent({ tenantId: 't2' })),
      await who(m, agent({ id: 'p2' })),
      await who(m, agent({ role: 'tenant-admin' })),
      await who(m, agent({ groups: ['ops'] })),
      await who(m, agent(), 'y'),
      await who(m, agent(), null),
    ];
    expect(runs).to.equal(7);
    expect(new Set(answers).size).to.equal(7);
  });

  it('keeps no refusal, and nothing for a caller without a principal', async () => {
    const m = memo();
    refuse = true;
    expect((await m.execute(exec, 'who', Q, { v: 'x' }, ctxOf(agent()))).errorCodes).to.deep.equal(['SERVICE_UNAVAILABLE']);
    refuse = false;
    expect(await who(m, agent())).to.equal('t1//x/2');
    await who(m, null);
    await who(m, null);
    expect(runs).to.equal(4);
    expect(m.size).to.equal(1);
  });

  it('files an outcome that raced a change under the generation it started in: never served after the change', async () => {
    const m = memo();
    const slow = new DecisionMemo(byKey, () => String(generation), () => () => undefined, { maxBytes: 1 << 20, maxBodyBytes: 1 << 16 }); // no clear on change
    const pending = slow.execute({ prepare: () => undefined, execute: async (q, v, c) => { change(); return exec.execute(q, v, c); } }, 'who', Q, { v: 'x' }, ctxOf(agent()));
    await pending;
    expect(await who(slow, agent())).to.equal('t1//x/2'); // executed again: the first outcome belongs to the old generation
    expect(m.size).to.equal(0);
  });
});
