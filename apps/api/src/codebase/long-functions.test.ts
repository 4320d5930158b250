import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repositoryRoot, sourceFiles } from '../../../../scripts/rules-index.ts';

// Functions longer than a screen are where a reader loses the thread. The ones that exist are
// listed with their length when this test was written; a new one fails, a listed one may only get
// shorter, and one split below the limit must leave the list (so the list is the debt, exactly).

const LIMIT = 80;

/** Where the product's code is: sources only (no tests, no generated client: rules-index's sourceFiles skips that). */
const ROOTS = ['apps/api/src/', 'packages/domain/src/', 'packages/kube-emulator/src/', 'apps/console/app/', 'apps/console/components/', 'apps/console/lib/'];

function productSources(root: string): string[] {
  return sourceFiles(root).filter(
    (file) => ROOTS.some((dir) => file.startsWith(dir)) && /\.tsx?$/.test(file) && !/\.(test|spec)\.tsx?$|\.d\.ts$/.test(file) && !file.includes('/test/'),
  );
}

function nameOf(node: ts.Node): string | null {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isFunctionExpression(node)) && node.name) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText();
  return null;
}

/** Every function longer than LIMIT lines: `file › name` (an unnamed one as `(anonymous in <enclosing>)`) → its lines. */
function longFunctions(root: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const file of productSources(root)) {
    const source = ts.createSourceFile(file, readFileSync(path.join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node, enclosing: string): void => {
      let here = enclosing;
      if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node)) {
        const name = nameOf(node) ?? `(anonymous in ${enclosing})`;
        const lines = source.getLineAndCharacterOfPosition(node.end).line - source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
        if (lines > LIMIT) {
          const key = `${file} › ${name}`;
          found.set(key, Math.max(lines, found.get(key) ?? 0));
        }
        here = nameOf(node) ?? enclosing;
      }
      ts.forEachChild(node, (child) => visit(child, here));
    };
    visit(source, '(module)');
  }
  return found;
}

const KNOWN = new Map<string, number>([
  ['apps/api/src/controller/queue.ts › createKeyedQueue', 124],
  ['apps/api/src/graphql/loaders.ts › createLoaders', 122],
  ['apps/api/src/http/server.ts › createHttpApp', 136],
  ['apps/api/src/instance/cluster.ts › kubernetesInstanceCluster', 159],
  ['apps/api/src/instance/controller.ts › createInstanceController', 140],
  ['apps/api/src/instance/reconcile.ts › reconcileInstance', 87],
  ['apps/api/src/kube/instance-cache.ts › kubernetesInstanceCache', 97],
  ['apps/api/src/kube/secret-cache.ts › kubernetesSecretCache', 94],
  ['apps/api/src/leader/elector.ts › createElector', 108],
  ['apps/api/src/runtime.ts › startRuntime', 226],
  ['apps/api/src/seed/fill.ts › fillNamespace', 94],
  ['apps/api/src/selfconfig/cluster.ts › kubernetesSelfConfigCluster', 188],
  ['apps/api/src/selfconfig/controller.ts › createSelfConfigController', 230],
  ['apps/api/src/selfconfig/reconcile.ts › decide', 127],
  ['apps/api/src/selfconfig/reconcile.ts › verify', 84],
  ['apps/api/src/services/auth-cache.ts › startAuthCache', 114],
  ['apps/api/src/services/deploy-agent.ts › (anonymous in deployAgent)', 82],
  ['apps/api/src/services/deploy-agent.ts › deployAgent', 91],
  ['apps/api/src/services/deploy-checks.ts › evaluateDeploy', 92],
  ['apps/api/src/services/deploy-work.ts › deployRevisionKind', 121],
  ['apps/api/src/services/secret-references.ts › secretReferenceGraphs', 117],
  ['apps/api/src/services/secret-rollouts.ts › secretRolloutKind', 122],
  ['apps/api/src/services/secret-rollouts.ts › step', 119],
  ['apps/api/src/services/secrets.ts › updateSecret', 88],
  ['apps/api/src/worker.ts › startSlot', 168],
  ['apps/api/src/worker.ts › startWorker', 199],
  ['apps/console/components/access/AccessScreen.tsx › NamespaceAccess', 102],
  ['apps/console/components/access/ExplainAccessForm.tsx › ExplainAccessForm', 101],
  ['apps/console/components/access/GrantAccessForm.tsx › GrantAccessForm', 138],
  ['apps/console/components/access/SubjectPicker.tsx › SubjectPicker', 115],
  ['apps/console/components/agents/AgentDetail.tsx › AgentDetail', 124],
  ['apps/console/components/agents/CreateAgentForm.tsx › CreateAgentForm', 161],
  ['apps/console/components/audit/AuditScreen.tsx › AuditFilterForm', 98],
  ['apps/console/components/configurations/BindingsEditor.tsx › BindingsEditor', 89],
  ['apps/console/components/configurations/CreateConfigurationForm.tsx › CreateConfigurationForm', 100],
  ['apps/console/components/configurations/EditConfigurationForm.tsx › EditConfigurationForm', 124],
  ['apps/console/components/deploy/RedeployConsumers.tsx › RedeployConsumersPanel', 97],
  ['apps/console/components/deploy/RevisionCompare.tsx › DiffTables', 83],
  ['apps/console/components/deploy/RevisionsList.tsx › RevisionCard', 132],
  ['apps/console/components/feedback/ConfirmDestructive.tsx › ConfirmDestructive', 109],
  ['apps/console/components/layout/CommandPalette.tsx › CommandPalette', 116],
  ['apps/console/components/secrets/CreateSecretForm.tsx › CreateSecretForm', 88],
  ['apps/console/components/secrets/InlineCreateSecret.tsx › InlineCreateSecret', 119],
  ['apps/console/components/secrets/ReferenceGraph.tsx › ReferenceGraph', 114],
  ['apps/console/components/secrets/RotateSecretPanel.tsx › RotateSecretPanel', 92],
  ['apps/console/components/secrets/RotationPolicyEditor.tsx › PolicyForm', 133],
  ['apps/console/components/secrets/SecretPicker.tsx › SecretPicker', 212],
  ['apps/console/components/secrets/SecretVersions.tsx › SecretVersions', 94],
  ['apps/console/components/selfconfig/RequestTable.tsx › RequestRow', 84],
  ['packages/domain/src/gateway-render.ts › renderGateway', 119],
  ['packages/domain/src/instance-status.ts › instanceStatus', 84],
  ['packages/domain/src/selfconfig.ts › applyBody', 97],
  ['packages/domain/src/selfconfig.ts › parseSelfConfigSpec', 103],
  ['packages/kube-emulator/src/api.ts › update', 121],
  ['packages/kube-emulator/src/http.ts › createHttpLayer', 381],
  ['packages/kube-emulator/src/http.ts › execute', 92],
  ['packages/kube-emulator/src/kubelet/simulator.ts › startKubeletSimulator', 483],
  ['packages/kube-emulator/src/printers/pod.ts › podSummary', 85],
  ['packages/kube-emulator/src/strategic-patch.ts › goSliceStable', 97],
]);

describe(`functions longer than ${LIMIT} lines`, () => {
  const found = longFunctions(repositoryRoot());

  it('no new one: every function over the limit is a known one', () => {
    expect([...found.keys()].filter((key) => !KNOWN.has(key)), `split it into named parts, or (for a good reason) list it in KNOWN`).toEqual([]);
  });

  it('a known one only gets shorter, and leaves the list once it is within the limit', () => {
    const grown = [...found].filter(([key, lines]) => lines > (KNOWN.get(key) ?? Infinity)).map(([key, lines]) => `${key}: ${KNOWN.get(key)} → ${lines}`);
    expect(grown, 'these grew').toEqual([]);
    expect([...KNOWN.keys()].filter((key) => !found.has(key)), 'within the limit (or gone) now: remove them from KNOWN').toEqual([]);
  });
});
