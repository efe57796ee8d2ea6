import type { View } from '../catalog/projection';
import { toCompact, toStandard } from '../catalog/projection';
import type { ToolRecord } from '../catalog/tool-record';
import { AnnotationsType, CompactToolDescriptorType, ToolDescriptorType } from './tool.types';

/** Wraps domain projections in GraphQL classes; builds nothing itself (projection.ts owns the shapes). */
export function toToolView(r: ToolRecord, view: View): ToolDescriptorType | CompactToolDescriptorType {
  const d = view === 'compact' ? toCompact(r) : toStandard(r);
  const out = Object.assign(view === 'compact' ? new CompactToolDescriptorType() : new ToolDescriptorType(), d);
  out.annotations = Object.assign(new AnnotationsType(), d.annotations);
  return out;
}
