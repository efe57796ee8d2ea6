import { request as httpRequest } from 'node:http';

/**
 * One HTTP request with exactly the headers given, Host included (fetch would not let a test forge Host, send it
 * twice, or leave it out): an object, or Node's raw [name, value, …] list for repeated headers.
 */
export function rawRequest(url: string, path: string, method: string, headers: Record<string, string> | string[], body?: string): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, path, method, headers, setHost: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
