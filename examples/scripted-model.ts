/**
 * The stand-in for a model in the examples (issue 17), so that they run offline and deterministically: on its first
 * turn it "chooses" the offered tool whose description mentions `task.keyword` and calls it with `task.arguments`; once
 * it has seen a tool result it answers with that result's text. Each example wraps it in its provider's wire format,
 * so the loop around it is the one a real model would drive.
 */
export interface Task {
  readonly prompt: string;
  readonly keyword: string;
  readonly arguments: Record<string, unknown>;
}

export interface ExampleOptions {
  readonly baseUrl: string;
  readonly token: string;
  readonly task: Task;
}

export type Decision = { readonly kind: 'call'; readonly name: string; readonly arguments: Record<string, unknown> } | { readonly kind: 'answer'; readonly text: string };

/** `offered`: the tools as the model sees them (name, description); `seen`: tool results so far, as text. */
export function decide(task: Task, offered: ReadonlyArray<{ name: string; description?: string }>, seen: readonly string[]): Decision {
  if (seen.length > 0) return { kind: 'answer', text: `The tool answered: ${seen[seen.length - 1]}` };
  const chosen = offered.find((t) => (t.description ?? '').toLowerCase().includes(task.keyword.toLowerCase()));
  if (!chosen) return { kind: 'answer', text: 'No tool fits.' };
  return { kind: 'call', name: chosen.name, arguments: task.arguments };
}

/** The text of a call result's content, as a model would be shown it. */
export function resultText(content: ReadonlyArray<{ type: string; text?: unknown }>): string {
  return content.map((c) => (c.type === 'text' && typeof c.text === 'string' ? c.text : JSON.stringify(c))).join('\n');
}

/** Runs an example from the command line: TOOLCAT_URL, TOOLCAT_KEY (e.g. the keys `npm start` prints). */
export function runFromCli(run: (o: ExampleOptions) => Promise<string>): void {
  const task: Task = { prompt: 'What is (2 + 3) * 4?', keyword: 'arithmetic', arguments: { expression: '(2 + 3) * 4' } };
  run({ baseUrl: process.env.TOOLCAT_URL ?? 'http://127.0.0.1:8080', token: process.env.TOOLCAT_KEY ?? '', task }).then(
    (answer) => console.log(answer),
    (err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
