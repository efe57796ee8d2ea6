import type { ReactNode } from 'react';

/** A tenant choice that lives in the route (#/page?tenant=…), so a page can be linked and reloaded. */
export function TenantPicker({ page, tenants, current }: { page: string; tenants: ReadonlyArray<{ id: string; name: string }>; current: string }): ReactNode {
  return (
    <p className="row">
      <label>
        Tenant
        <select value={current} onChange={(e) => { location.hash = `#/${page}?tenant=${encodeURIComponent(e.target.value)}`; }}>
          {tenants.some((t) => t.id === current) ? null : <option value={current}>(not visible to you)</option>}
          {tenants.map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
        </select>
      </label>
    </p>
  );
}
