import { Arg, Ctx, Field, ID, Int, ObjectType, Query, Resolver } from 'type-graphql';
import { GraphQLJSON } from 'graphql-scalars';
import type { GraphQLContext } from './context';
import type { AppServices } from './services';
import { FIRST_ARG_DESCRIPTION, OFFSET_ARG_DESCRIPTION } from './log-page.args';

@ObjectType('AuditEntry', { description: 'One admin change: who, when, what, before and after, under which request.' })
export class AuditEntryType {
  @Field(() => ID) id!: string;
  @Field(() => String) at!: string;
  @Field(() => String, { nullable: true }) requestId!: string | null;
  @Field(() => String) actorId!: string;
  @Field(() => String) actorName!: string;
  @Field(() => String) actorRole!: string;
  @Field(() => String, { description: 'The mutation or operator command.' }) action!: string;
  @Field(() => String) targetType!: string;
  @Field(() => String) targetId!: string;
  @Field(() => ID, { nullable: true }) tenantId!: string | null;
  @Field(() => GraphQLJSON, { nullable: true }) before!: unknown;
  @Field(() => GraphQLJSON, { nullable: true }) after!: unknown;
}

@Resolver()
export class AuditResolver {
  constructor(private readonly s: AppServices) {}

  @Query(() => [AuditEntryType], { description: 'Newest first. host-admin: every row; tenant-admin: its tenant\'s rows.' })
  async auditLog(
    @Ctx() ctx: GraphQLContext,
    @Arg('first', () => Int, { defaultValue: 50, description: FIRST_ARG_DESCRIPTION }) first: number,
    @Arg('offset', () => Int, { defaultValue: 0, description: OFFSET_ARG_DESCRIPTION }) offset: number,
    @Arg('action', () => String, { nullable: true }) action?: string | null,
    @Arg('targetId', () => String, { nullable: true }) targetId?: string | null,
  ): Promise<AuditEntryType[]> {
    const rows = await this.s.audit.list(ctx.principal, { first, offset, action, targetId });
    return rows.map((r) =>
      Object.assign(new AuditEntryType(), {
        id: r.id, at: r.at, requestId: r.requestId, actorId: r.actorId, actorName: r.actorName, actorRole: r.actorRole, action: r.action,
        targetType: r.targetType, targetId: r.targetId, tenantId: r.tenantId,
        before: r.before === null ? null : JSON.parse(r.before), after: r.after === null ? null : JSON.parse(r.after),
      }),
    );
  }
}
