// Writes protobuf-messages.ts, the protobuf form of every kind the server serves, from the one
// description Kubernetes keeps of them: the Go types of k8s.io/api and k8s.io/apimachinery, whose
// generated.proto files give each field's number and wire type and whose types.go give its JSON
// name, whether it is inlined (`json:",inline"`) and whether it is a pointer (a zero value the
// client meant). Run from packages/kube-emulator with git directories of both repositories:
//
//   node --import tsx src/protobuf-generate.ts API_GIT_DIR APIMACHINERY_GIT_DIR v0.33.1 > src/protobuf-messages.ts
//
// Only the messages the roots reach are written (ROOTS: the served kinds, their lists, and the
// bodies of their subresources).

import { execFileSync } from 'node:child_process';

/** Package directories by the proto package name their messages are written under. */
const PACKAGES: Record<string, { repo: 'api' | 'apimachinery'; dir: string }> = {
  'core.v1': { repo: 'api', dir: 'core/v1' },
  'apps.v1': { repo: 'api', dir: 'apps/v1' },
  'rbac.v1': { repo: 'api', dir: 'rbac/v1' },
  'coordination.v1': { repo: 'api', dir: 'coordination/v1' },
  'admissionregistration.v1': { repo: 'api', dir: 'admissionregistration/v1' },
  'authentication.v1': { repo: 'api', dir: 'authentication/v1' },
  'authorization.v1': { repo: 'api', dir: 'authorization/v1' },
  'autoscaling.v1': { repo: 'api', dir: 'autoscaling/v1' },
  'batch.v1': { repo: 'api', dir: 'batch/v1' },
  'networking.v1': { repo: 'api', dir: 'networking/v1' },
  'policy.v1': { repo: 'api', dir: 'policy/v1' },
  'meta.v1': { repo: 'apimachinery', dir: 'pkg/apis/meta/v1' },
  runtime: { repo: 'apimachinery', dir: 'pkg/runtime' },
};

/** Messages with a JSON form of their own, read and written by protobuf.ts. */
const SPECIAL: Record<string, string> = {
  'meta.v1.Time': 'time',
  'meta.v1.MicroTime': 'microtime',
  'meta.v1.Duration': 'duration',
  'meta.v1.FieldsV1': 'raw',
  'runtime.RawExtension': 'raw',
  'intstr.IntOrString': 'intstr',
  'resource.Quantity': 'quantity',
  // `type ExtraValue []string`: a message of one repeated string whose JSON form is the bare array.
  'authentication.v1.ExtraValue': 'strings',
  'authorization.v1.ExtraValue': 'strings',
};

const ROOTS = [
  'core.v1.Namespace',
  'core.v1.Secret',
  'core.v1.ConfigMap',
  'core.v1.Event',
  'core.v1.ServiceAccount',
  'core.v1.Pod',
  'core.v1.Service',
  'core.v1.Endpoints',
  'core.v1.Node',
  'apps.v1.Deployment',
  'apps.v1.ReplicaSet',
  'coordination.v1.Lease',
  'batch.v1.Job',
  'networking.v1.NetworkPolicy',
  'policy.v1.PodDisruptionBudget',
  'rbac.v1.Role',
  'rbac.v1.RoleBinding',
  'rbac.v1.ClusterRole',
  'rbac.v1.ClusterRoleBinding',
  'admissionregistration.v1.ValidatingWebhookConfiguration',
  'admissionregistration.v1.ValidatingAdmissionPolicy',
  'admissionregistration.v1.ValidatingAdmissionPolicyBinding',
  'authentication.v1.TokenRequest',
  'authorization.v1.SelfSubjectAccessReview',
  'authorization.v1.SubjectAccessReview',
  'authorization.v1.LocalSubjectAccessReview',
  'authorization.v1.SelfSubjectRulesReview',
  'autoscaling.v1.Scale',
  'meta.v1.Status',
  'runtime.Unknown',
];

function show(gitDir: string, tag: string, path: string): string {
  return execFileSync('git', ['--git-dir', gitDir, 'show', `${tag}:${path}`], { encoding: 'utf8', maxBuffer: 64 << 20 });
}

function list(gitDir: string, tag: string, dir: string): string[] {
  return execFileSync('git', ['--git-dir', gitDir, 'ls-tree', '--name-only', `${tag}:${dir}`], { encoding: 'utf8' })
    .split('\n')
    .filter((name) => name.endsWith('.go') && !name.endsWith('_test.go') && !name.startsWith('zz_generated') && !name.includes('generated'));
}

interface ProtoField {
  name: string;
  number: number;
  type: string;
  repeated: boolean;
  map: boolean;
}

interface GoField {
  json: string;
  inline: boolean;
  pointer: boolean;
}

/** The proto package's short name (core.v1, meta.v1, runtime, intstr, resource) of a qualified type. */
function qualify(type: string, pkg: string): string {
  if (!type.startsWith('.')) return /^[A-Z]/.test(type) ? `${pkg}.${type}` : type;
  const parts = type.slice(1).split('.');
  const name = parts.pop() ?? '';
  const path = parts.join('.');
  const known: Record<string, string> = {
    'k8s.io.apimachinery.pkg.apis.meta.v1': 'meta.v1',
    'k8s.io.apimachinery.pkg.runtime': 'runtime',
    'k8s.io.apimachinery.pkg.runtime.schema': 'schema',
    'k8s.io.apimachinery.pkg.util.intstr': 'intstr',
    'k8s.io.apimachinery.pkg.api.resource': 'resource',
  };
  const short = known[path] ?? path.replace(/^k8s\.io\.api\./, '');
  return `${short}.${name}`;
}

function parseProto(text: string, pkg: string): Map<string, ProtoField[]> {
  const messages = new Map<string, ProtoField[]>();
  let current: ProtoField[] | undefined;
  let depth = 0;
  for (const line of text.split('\n')) {
    const start = /^message (\w+) \{/.exec(line);
    if (start && depth === 0) {
      current = [];
      messages.set(`${pkg}.${start[1]}`, current);
      depth = 1;
      continue;
    }
    if (current === undefined) continue;
    if (/^\s*message \w+ \{/.test(line)) depth++;
    if (/^\s*\}/.test(line)) {
      depth--;
      if (depth === 0) current = undefined;
      continue;
    }
    if (depth !== 1) continue;
    const map = /^\s+map<string, ([\w.]+)> (\w+) = (\d+);/.exec(line);
    if (map) {
      current.push({ name: map[2] ?? '', number: Number(map[3]), type: qualify(map[1] ?? '', pkg), repeated: false, map: true });
      continue;
    }
    const field = /^\s+(optional|repeated) ([\w.]+) (\w+) = (\d+);/.exec(line);
    if (field) current.push({ name: field[3] ?? '', number: Number(field[4]), type: qualify(field[2] ?? '', pkg), repeated: field[1] === 'repeated', map: false });
  }
  return messages;
}

/** Go structs' fields by struct name, then by the protobuf tag's name= (the proto field's name). */
function parseGo(text: string, pkg: string, into: Map<string, Map<string, GoField>>): void {
  let current: Map<string, GoField> | undefined;
  for (const line of text.split('\n')) {
    const start = /^type (\w+) struct \{/.exec(line);
    if (start) {
      current = new Map();
      into.set(`${pkg}.${start[1]}`, current);
      continue;
    }
    if (current === undefined) continue;
    if (/^\}/.test(line)) {
      current = undefined;
      continue;
    }
    const field = /^\s+(?:(\w+)\s+)?(\S+)\s+`([^`]*)`/.exec(line);
    if (!field) continue;
    const tags = field[3] ?? '';
    const protobuf = /protobuf:"([^"]*)"/.exec(tags);
    const json = /json:"([^"]*)"/.exec(tags);
    if (!protobuf || !json) continue;
    // The proto field's name: name= in the tag, else the Go field's (an embedded struct's type) lowered.
    const goName = field[1] ?? (field[2] ?? '').replace(/^\*/, '').replace(/^\w+\./, '');
    const protoName = /name=(\w+)/.exec(protobuf[1] ?? '')?.[1] ?? goName.charAt(0).toLowerCase() + goName.slice(1);
    const jsonName = (json[1] ?? '').split(',')[0] ?? '';
    current.set(protoName, { json: jsonName, inline: jsonName === '' && (json[1] ?? '').includes('inline'), pointer: (field[2] ?? '').startsWith('*') });
  }
}

function main(): void {
  const [apiDir, machineryDir, tag] = process.argv.slice(2);
  if (!apiDir || !machineryDir || !tag) throw new Error('usage: protobuf-generate.ts API_GIT_DIR APIMACHINERY_GIT_DIR TAG');
  const proto = new Map<string, ProtoField[]>();
  const go = new Map<string, Map<string, GoField>>();
  for (const [pkg, { repo, dir }] of Object.entries(PACKAGES)) {
    const gitDir = repo === 'api' ? apiDir : machineryDir;
    for (const [name, fields] of parseProto(show(gitDir, tag, `${dir}/generated.proto`), pkg)) proto.set(name, fields);
    for (const file of list(gitDir, tag, dir)) parseGo(show(gitDir, tag, `${dir}/${file}`), pkg, go);
  }
  const reached = new Set<string>();
  // Each kind's list too, for list responses.
  const pending = [...ROOTS, ...ROOTS.map((root) => `${root}List`).filter((name) => proto.has(name))];
  while (pending.length > 0) {
    const name = pending.pop() ?? '';
    if (reached.has(name) || SPECIAL[name] !== undefined) continue;
    if (!proto.has(name)) throw new Error(`no message ${name}`);
    reached.add(name);
    for (const field of proto.get(name) ?? []) if (/^[\w]+\.[\w.]*[A-Z]/.test(field.type)) pending.push(field.type);
  }
  const out: string[] = [];
  for (const name of [...reached].sort()) {
    const goFields = go.get(name);
    const entries = (proto.get(name) ?? []).map((field) => {
      const goField = goFields?.get(field.name);
      if (goField === undefined && !name.startsWith('runtime.')) throw new Error(`${name}.${field.name}: no Go field with that protobuf name`);
      // runtime's envelopes have no JSON form: their fields keep the proto names.
      const json = goField === undefined || name.startsWith('runtime.') ? field.name : goField.inline ? '-' : goField.json;
      const type = SPECIAL[field.type] ?? field.type;
      const modifier = field.map ? 'map:' : field.repeated ? '[]' : '';
      return `${json}=${field.number}:${modifier}${type}${goField?.pointer ? '?' : ''}`;
    });
    out.push(`  '${name}': '${entries.join(' ')}',`);
  }
  process.stdout.write(
    [
      `// Generated by protobuf-generate.ts from k8s.io/api and k8s.io/apimachinery ${tag}: do not edit.`,
      '// One entry per message, `json=number:type`: json is the field\'s JSON name (- when it is inlined),',
      '// type a scalar, another message or a type with its own JSON form (time, microtime, duration, raw,',
      '// intstr, quantity, strings); `[]` marks a repeated field, `map:` a map<string, type>, a trailing ? a pointer.',
      '',
      'export const MESSAGES: Record<string, string> = {',
      ...out,
      '};',
      '',
    ].join('\n'),
  );
}

main();
