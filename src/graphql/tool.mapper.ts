import type { View } from '../catalog/projection';
import { toCompact, toStandard } from '../catalog/projection';
import type { ToolRecord } from '../catalog/tool-record';
import type { AnyDescriptor } from '../services/catalog-read.service';
import { AnnotationsType, CompactToolDescriptorType, ToolDescriptorType } from './tool.types';

/** Wraps a served descriptor (the parsed bytes of the one read path) in its GraphQL class; builds nothing itself. */
export function toToolView(d: AnyDescriptor, view: View): ToolDescriptorType | CompactToolDescriptorType {
  const out = Object.assign(view === 'compact' ? new CompactToolDescriptorType() : new ToolDescriptorType(), d);
  out.annotations = Object.assign(new AnnotationsType(), d.annotations);
  return out;
}

/** An admin's view of a stored record in the given view (projection.ts builds it, exactly as for agents). */
export function recordView(r: ToolRecord, view: View): ToolDescriptorType | CompactToolDescriptorType {
  return toToolView(view === 'compact' ? toCompact(r) : toStandard(r), view);
}
