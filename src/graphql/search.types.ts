import { Field, Float, Int, ObjectType } from 'type-graphql';
import { CompactToolDescriptorType, ToolDescriptorType, ToolViewUnion } from './tool.types';

@ObjectType('ToolSearchHit', { description: 'One ranked tool of a search (issue 18).' })
export class ToolSearchHitType {
  @Field(() => Float, { description: 'BM25F relevance (greater is better); comparable within one answer only.' })
  score!: number;

  @Field(() => ToolViewUnion, { description: 'The descriptor in the applied view: the same bytes as GET /tools.' })
  tool!: ToolDescriptorType | CompactToolDescriptorType;
}

@ObjectType('ToolSearchResult', { description: 'The caller\'s visible tools ranked for a task text (docs/tool-search.md).' })
export class ToolSearchResultType {
  @Field(() => String, { description: 'standard | compact: the view actually applied (TC-VIEW-4).' })
  appliedView!: string;

  @Field(() => [ToolSearchHitType], { description: 'Best first (relevance order, the one exception to toolId order); equal scores by toolId.' })
  hits!: ToolSearchHitType[];

  @Field(() => Int, { description: 'How many of the caller\'s visible tools match at least one query term.' })
  matched!: number;

  @Field(() => Boolean, { description: 'The query had more distinct terms than are scored (256): only the first ones counted.' })
  truncated!: boolean;
}
