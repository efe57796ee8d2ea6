import { type FormEvent, type ReactNode, useState } from 'react';

/** Filter fields applied on submit (not per keystroke), so paging restarts at the first row of the new filter. */
export function Filters<K extends string>(props: { fields: ReadonlyArray<{ key: K; label: string }>; onApply: (v: Record<K, string>) => void }): ReactNode {
  const [values, setValues] = useState<Record<string, string>>({});
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    props.onApply(Object.fromEntries(props.fields.map((f) => [f.key, (values[f.key] ?? '').trim()])) as Record<K, string>);
  };
  return (
    <form onSubmit={submit} className="row" role="search">
      {props.fields.map((f) => (
        <label key={f.key}>
          {f.label}
          <input name={f.key} value={values[f.key] ?? ''} onChange={(e) => setValues({ ...values, [f.key]: e.target.value })} />
        </label>
      ))}
      <button type="submit">Apply filters</button>
    </form>
  );
}
