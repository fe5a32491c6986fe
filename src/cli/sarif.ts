/**
 * SARIF 2.1.0 (OASIS), the format code-scanning services read (GitHub's upload-sarif, GitLab,
 * Azure DevOps): one run of the tool `toolgate`, each finding a result with its rule id, level
 * and place. Paths are given as the findings name them (relative to where the command ran),
 * which is how those services resolve them against the checkout.
 */
export interface SarifFinding {
  readonly ruleId: string;
  readonly level: 'error' | 'warning' | 'note';
  readonly message: string;
  readonly file: string;
  readonly line?: number;
  readonly column?: number;
}

export interface SarifRule {
  readonly id: string;
  readonly description: string;
}

export function sarifLog(version: string, rules: readonly SarifRule[], findings: readonly SarifFinding[]) {
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'toolgate',
            version,
            rules: rules.map((r) => ({ id: r.id, shortDescription: { text: r.description } })),
          },
        },
        results: findings.map((f) => ({
          ruleId: f.ruleId,
          ruleIndex: rules.findIndex((r) => r.id === f.ruleId),
          level: f.level,
          message: { text: f.message },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: uriOf(f.file) },
                ...(f.line !== undefined && {
                  region: { startLine: f.line, ...(f.column !== undefined && { startColumn: f.column }) },
                }),
              },
            },
          ],
        })),
      },
    ],
  };
}

/** A relative path as a URI reference (forward slashes, each segment percent-encoded). */
function uriOf(file: string): string {
  const posix = file.split('\\').join('/');
  const segments = posix.split('/').map((s) => encodeURIComponent(s));
  return posix.startsWith('/') ? `file://${segments.join('/')}` : segments.join('/');
}
