import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'tenant' })
export class TenantEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ type: 'varchar', length: 64, unique: true })
  name!: string;

  /** ISO-8601 text: identical on both drivers, sortable. */
  @Column({ name: 'created_at', type: 'varchar', length: 32 })
  createdAt!: string;
}
