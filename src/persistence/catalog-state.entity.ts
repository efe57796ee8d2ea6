import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One row whose version is bumped, in the same transaction, by every write that can change what any
 * caller sees (tools, classifications, grants, principals, tenants). Caches key on it.
 */
@Entity({ name: 'catalog_state' })
export class CatalogStateEntity {
  @PrimaryColumn({ type: 'integer' })
  id!: number;

  @Column({ type: 'integer' })
  version!: number;
}
