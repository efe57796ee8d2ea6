import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A caller: an agent or an admin, always inside one tenant. Only the SHA-256 of its API key is stored. */
@Entity({ name: 'principal' })
export class PrincipalEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Index('idx_principal_tenant')
  @Column({ name: 'tenant_id', type: 'varchar', length: 36 })
  tenantId!: string;

  @Column({ type: 'varchar', length: 128 })
  name!: string;

  /** agent | tenant-admin | host-admin */
  @Column({ type: 'varchar', length: 16 })
  role!: string;

  @Column({ name: 'key_hash', type: 'varchar', length: 64, unique: true })
  keyHash!: string;

  /** First characters of the key, so an admin can tell keys apart without the key. */
  @Column({ name: 'key_prefix', type: 'varchar', length: 16 })
  keyPrefix!: string;

  @Column({ name: 'created_at', type: 'varchar', length: 32 })
  createdAt!: string;

  @Column({ name: 'revoked_at', type: 'varchar', length: 32, nullable: true })
  revokedAt!: string | null;
}
