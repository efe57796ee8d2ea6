/** What admins see of a source's URL (issue 11 defect 3 and its red-team follow-up F8): never the key in its path. */
import { expect } from 'chai';
import { publicUrl } from './source-spec';

describe(publicUrl.name, () => {
  it('issue 11 red team F8: a key carried as a path segment is shown as [redacted], the rest of the path stays readable', () => {
    expect(publicUrl({ value: 'https://mcp.example.com/s/Zx9Qp2Lm7Rt4Vb8Nc3Kd6Fh1Jg5/sse' })).to.equal('https://mcp.example.com/s/[redacted]/sse');
    expect(publicUrl({ value: 'https://x.example/mcp/3f2a9c1e7b5d4a8f9e6c2b1a0d7f5e3c/' })).to.equal('https://x.example/mcp/[redacted]/');
    expect(publicUrl({ value: 'https://u:p4ssw0rd-here@x.example/mcp?api_key=abcdefghijklmnop' })).to.equal('https://x.example/mcp');
    for (const plain of ['https://api.githubcopilot.com/mcp/', 'https://mcp.notion.com/mcp', 'https://example.com/v1/servers/my-server-name/mcp']) {
      expect(publicUrl({ value: plain })).to.equal(plain);
    }
    expect(publicUrl({ fromEnv: 'REMOTE_MCP_URL' })).to.equal('$REMOTE_MCP_URL');
  });
});
