// The HTTP layer: authentication, routing of /api and /apis paths to a Target and a verb, body
// and query parsing, and writing objects, Status failures and watch streams. It holds no state
// of its own beyond the open watch streams.
//
// Every request is resolved to a `Call` (verb + target + parsed inputs) before anything runs, so
// that a later fault-injection layer can match on verb and path and delay, fail or drop it.

import type { IncomingMessage, ServerResponse } from 'node:http';
import yaml from 'js-yaml';
import type { AdmittedWrite, WebhookAdmission } from './admission.ts';
import type { DeleteOptions, KubeApi, PatchType, PropagationPolicy, Target, WatchEvent, WriteOptions } from './api.ts';
import { bearerToken, sameToken, type Authenticator, type UserInfo } from './auth.ts';
import { apiGroup, coreVersions, groupList, resourceList, VERSION_INFO } from './discovery.ts';
import {
  badRequest,
  forbiddenField,
  internalError,
  invalid,
  methodNotAllowed,
  notSupported,
  pathNotFound,
  StatusError,
  unauthorized,
  unsupportedMediaType,
  type StatusBody,
} from './errors.ts';
import { parseFaultRule, type FaultAction, type Faults } from './faults.ts';
import { fieldValidationOf, warningHeader } from './field-validation.ts';
import { openApiV2, openApiV3ForPath, openApiV3Root } from './openapi-docs.ts';
import { podLog } from './pod-log.ts';
import { MAX_DEPTH_MESSAGE, nestsDeeperThan } from './nesting.ts';
import { decodeProtobufObject, encodeProtobufObject, prefersProtobuf, PROTOBUF_MEDIA_TYPE } from './protobuf.ts';
import type { ResourceRegistry, ResourceType } from './registry.ts';
import { actingUser } from './impersonation.ts';
import { forbiddenError, requestAttributes, type Authorizer } from './rbac-authorizer.ts';
import { answerReview, REVIEW_RESOURCES, type ReviewResource } from './rbac-reviews.ts';
import { includeObjectOf, tableVersion, toTable } from './table.ts';
import { isObject, type KubeObject } from './types.ts';

const MAX_BODY_BYTES = 3 * 1024 * 1024;
const OPEN_PATHS = new Set(['/healthz', '/livez', '/readyz', '/version']);
const PATCH_TYPES: Record<string, PatchType> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
  'application/apply-patch+cbor': 'apply',
};

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** One resolved API request. */
export interface Call {
  verb: Verb;
  target: Target;
  query: URLSearchParams;
  request: IncomingMessage;
  /** Who the bearer token authenticated as. */
  user: UserInfo;
}

export interface HttpLayerOptions {
  api: KubeApi;
  registry: ResourceRegistry;
  /** Bearer tokens to users (auth.ts); a request it does not know is 401. */
  authenticate: Authenticator;
  /** RBAC (rbac-authorizer.ts, E9): an authenticated request it does not allow is 403. */
  authorizer: Authorizer;
  /** Validating admission webhooks (admission.ts), around every create, update, patch and delete. */
  admission: WebhookAdmission;
  /** POST /api/v1/namespaces/{namespace}/serviceaccounts/{name}/token (tokens.ts). */
  requestToken: (namespace: string, name: string, body: unknown) => unknown;
  /** host:port clients reach the server at, for /api's serverAddressByClientCIDRs. */
  serverAddress: () => string;
  faults: Faults;
  /** Enables /admin/faults for bearers of this token; the path does not exist without it. */
  adminToken?: string;
  /** How often a watch with allowWatchBookmarks gets a BOOKMARK (a real server: about a minute). */
  bookmarkIntervalMs?: number;
}

export interface HttpLayer {
  handle(request: IncomingMessage, response: ServerResponse): void;
  /** Ends every open watch stream (the server is closing). */
  endWatches(): void;
}

function writeJson(response: ServerResponse, code: number, body: unknown, warnings: string[] = []): void {
  const text = JSON.stringify(body);
  response.writeHead(code, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Content-Length': Buffer.byteLength(text),
    // One Warning header per text, as a real server writes them.
    ...(warnings.length > 0 ? { Warning: warnings.map(warningHeader) } : {}),
  });
  response.end(text);
}

/**
 * An object or list answered to a client: in protobuf when the client asks for it first and the
 * kind has a protobuf form (protobuf.ts), in JSON otherwise.
 */
function writeObject(request: IncomingMessage, response: ServerResponse, code: number, body: unknown, warnings: string[] = []): void {
  const encoded = prefersProtobuf(request.headers.accept) ? encodeProtobufObject(body) : undefined;
  if (encoded === undefined) return writeJson(response, code, body, warnings);
  response.writeHead(code, {
    'Content-Type': PROTOBUF_MEDIA_TYPE,
    'Cache-Control': 'no-cache, private',
    'Content-Length': encoded.length,
    ...(warnings.length > 0 ? { Warning: warnings.map(warningHeader) } : {}),
  });
  response.end(encoded);
}

function writeStatus(response: ServerResponse, status: StatusBody): void {
  writeJson(response, status.code, status);
}

function authorized(request: IncomingMessage, token: string): boolean {
  const given = bearerToken(request);
  return given !== undefined && sameToken(given, token);
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new StatusError(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

function mediaType(request: IncomingMessage): string {
  return (request.headers['content-type'] ?? 'application/json').split(';')[0]?.trim().toLowerCase() ?? '';
}

function parseBody(raw: Buffer, type: string): unknown {
  const body = decodeBody(raw, type);
  // Before anything walks it: the merges and SSA recurse (nesting.ts).
  if (nestsDeeperThan(body)) throw badRequest(`couldn't get version/kind; json parse error: ${MAX_DEPTH_MESSAGE}`);
  return body;
}

function decodeBody(raw: Buffer, type: string): unknown {
  if (type === PROTOBUF_MEDIA_TYPE) return decodeProtobufObject(raw);
  const text = raw.toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    if (type.includes('yaml')) {
      // client-node sends apply bodies as JSON, which JSON.parse reads much faster than js-yaml.
      if (/^\s*[{[]/.test(text)) {
        try {
          return JSON.parse(text);
        } catch {
          // YAML flow style, not JSON
        }
      }
      return yaml.load(text);
    }
    return JSON.parse(text);
  } catch (error) {
    throw badRequest(`couldn't get version/kind; json parse error: ${(error as Error).message}`);
  }
}

const FAULT_REASONS: Record<number, StatusBody['reason']> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

function injectedError(action: Extract<FaultAction, { type: 'error' }>): StatusError {
  const reason = FAULT_REASONS[action.status] ?? (action.status >= 500 ? 'InternalError' : 'BadRequest');
  return new StatusError(action.status, reason as NonNullable<StatusBody['reason']>, action.message ?? `injected fault: ${action.status}`);
}

/** Lets the call run to completion while nothing of its answer reaches the client. */
function silence(response: ServerResponse): void {
  Object.assign(response, {
    writeHead: () => response,
    flushHeaders: () => undefined,
    write: () => true,
    end: () => response,
  });
}

function truthy(value: string | null): boolean {
  return value === 'true' || value === '1';
}

function dryRunOf(query: URLSearchParams): boolean {
  const values = query.getAll('dryRun');
  for (const value of values) {
    if (value !== 'All') throw badRequest(`Invalid dryRun value: ${JSON.stringify(value)}: supported values: "All"`);
  }
  return values.length > 0;
}

function limitOf(query: URLSearchParams): number | undefined {
  const raw = query.get('limit');
  if (raw === null || raw === '') return undefined;
  if (!/^\d+$/.test(raw)) throw badRequest(`limit: Invalid value: ${JSON.stringify(raw)}: must be a non-negative integer`);
  return Number(raw);
}

const PROPAGATION_POLICIES = ['Foreground', 'Background', 'Orphan'];

/** DeleteOptions' propagationPolicy (body or query) or the older orphanDependents; Background when neither. */
function propagationPolicyOf(body: unknown, query: URLSearchParams): PropagationPolicy {
  const given = isObject(body) && typeof body.propagationPolicy === 'string' ? body.propagationPolicy : query.get('propagationPolicy');
  const orphan = isObject(body) && typeof body.orphanDependents === 'boolean' ? body.orphanDependents : undefined;
  if (given !== null && given !== undefined && given !== '') {
    if (!PROPAGATION_POLICIES.includes(given)) {
      throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', [notSupported('propagationPolicy', given, [...PROPAGATION_POLICIES, 'nil'])]);
    }
    if (orphan !== undefined) {
      throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', [forbiddenField('propagationPolicy', 'orphanDependents and deletionPropagation cannot be both set')]);
    }
    return given as PropagationPolicy;
  }
  return orphan === true ? 'Orphan' : 'Background';
}

function optional(value: string | null): string | undefined {
  return value === null ? undefined : value;
}

/** dryRun, fieldManager (or the User-Agent it defaults to), force and fieldValidation of a write. */
function writeOptionsOf(call: Call, isApply: boolean): WriteOptions {
  const { query, request } = call;
  const optionsKind = call.verb === 'create' ? 'CreateOptions' : call.verb === 'update' ? 'UpdateOptions' : 'PatchOptions';
  const force = query.get('force');
  if (force !== null && !isApply) {
    throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [
      forbiddenField('force', 'may not be specified for non-apply patch'),
    ]);
  }
  return {
    dryRun: dryRunOf(query),
    fieldManager: optional(query.get('fieldManager')) || undefined,
    userAgent: request.headers['user-agent'],
    force: truthy(force),
    fieldValidation: fieldValidationOf(query.get('fieldValidation'), optionsKind),
    warnings: [],
  };
}

/** /apis/authorization.k8s.io/v1/{review} and /apis/authorization.k8s.io/v1/namespaces/{namespace}/localsubjectaccessreviews. */
function reviewResource(segments: string[]): { resource: ReviewResource; namespace?: string } | undefined {
  const [apis, group, version, ...rest] = segments;
  if (apis !== 'apis' || group !== 'authorization.k8s.io' || version !== 'v1') return undefined;
  const [first, namespace, local] = rest;
  if (rest.length === 1 && REVIEW_RESOURCES.includes(first as ReviewResource) && first !== 'localsubjectaccessreviews') return { resource: first as ReviewResource };
  if (rest.length === 3 && first === 'namespaces' && local === 'localsubjectaccessreviews') return { resource: 'localsubjectaccessreviews', namespace };
  return undefined;
}

/**
 * Who a request is (its bearer token), then who it acts as (its Impersonate-* headers, `kubectl
 * --as`), before authorization, as in the real handler chain; undefined on the open paths.
 */
function requestUser(options: HttpLayerOptions, request: IncomingMessage, pathname: string): UserInfo | undefined {
  if (OPEN_PATHS.has(pathname)) return undefined;
  const authenticated = options.authenticate(request);
  if (!authenticated) throw unauthorized();
  return actingUser(request, authenticated, options.authorizer);
}

export function createHttpLayer(options: HttpLayerOptions): HttpLayer {
  const { api, registry } = options;
  const watches = new Set<ServerResponse>();

  /** Resolves /api/... and /apis/... paths; answers discovery documents itself. */
  function route(segments: string[], method: string, query: URLSearchParams, request: IncomingMessage, user: UserInfo): Call | { document: unknown } {
    let group: string;
    let version: string;
    let rest: string[];
    if (segments[0] === 'api') {
      if (segments.length === 1) return { document: coreVersions(options.serverAddress()) };
      if (segments[1] !== 'v1') throw pathNotFound();
      [group, version, rest] = ['', 'v1', segments.slice(2)];
    } else {
      if (segments.length === 1) return { document: groupList(registry) };
      if (segments.length === 2) {
        const document = apiGroup(registry, segments[1] ?? '');
        if (!document) throw pathNotFound();
        return { document };
      }
      [group, version, rest] = [segments[1] ?? '', segments[2] ?? '', segments.slice(3)];
    }
    if (rest.length === 0) {
      const document = resourceList(registry, group, version);
      if (!document) throw pathNotFound();
      return { document };
    }

    let type: ResourceType | undefined;
    let namespace: string | undefined;
    let tail: string[];
    const namespacedType = rest[0] === 'namespaces' && rest.length >= 3 ? registry.find(group, version, rest[2] ?? '') : undefined;
    if (namespacedType?.namespaced) {
      type = namespacedType;
      namespace = rest[1];
      tail = rest.slice(3);
    } else {
      type = registry.find(group, version, rest[0] ?? '');
      tail = rest.slice(1);
      // /api/v1/secrets lists across namespaces, but there is no /api/v1/secrets/{name}.
      if (type?.namespaced && tail.length > 0) type = undefined;
    }
    if (!type || tail.length > 2) throw pathNotFound();
    const [name, subresourceName] = tail;
    let subresource: Target['subresource'];
    if (subresourceName !== undefined) {
      if (subresourceName === 'status' && type.subresources.status) subresource = 'status';
      else if (subresourceName === 'scale' && type.subresources.scale) subresource = 'scale';
      else if (subresourceName === 'log' && type.group === '' && type.plural === 'pods') subresource = 'log';
      else throw pathNotFound();
    }
    const target: Target = { type, namespace, name, subresource };
    const watch = truthy(query.get('watch'));
    let verb: Verb | undefined;
    if (name === undefined) {
      verb = { GET: watch ? 'watch' : 'list', POST: 'create', DELETE: 'deletecollection' }[method] as Verb | undefined;
      if (verb === 'deletecollection' && type.namespaced && namespace === undefined) verb = undefined;
    } else if (subresource === 'log') {
      verb = method === 'GET' ? 'get' : undefined;
    } else if (subresource !== undefined) {
      verb = { GET: 'get', PUT: 'update', PATCH: 'patch' }[method] as Verb | undefined;
    } else {
      verb = { GET: watch ? 'watch' : 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' }[method] as Verb | undefined;
    }
    if (!verb) throw methodNotAllowed();
    return { verb, target, query, request, user };
  }

  /** Runs a write under the validating webhooks, with the options object they are shown. */
  function admitted<T>(call: Call, verb: AdmittedWrite<T>['verb'], write: WriteOptions, body: unknown, run: (dryRun: boolean) => T): Promise<T> {
    const kind = { create: 'CreateOptions', update: 'UpdateOptions', patch: 'PatchOptions', delete: 'DeleteOptions' }[verb];
    const bodyName = isObject(body) && isObject(body.metadata) && typeof body.metadata.name === 'string' ? body.metadata.name : '';
    return options.admission.admit({
      verb,
      target: call.target,
      name: call.target.name ?? bodyName,
      user: call.user,
      dryRun: write.dryRun === true,
      options: {
        kind,
        apiVersion: 'meta.k8s.io/v1',
        ...(write.dryRun ? { dryRun: ['All'] } : {}),
        ...(write.fieldManager ? { fieldManager: write.fieldManager } : {}),
        ...(write.force ? { force: true } : {}),
      },
      run,
    });
  }

  async function execute(call: Call, response: ServerResponse): Promise<void> {
    const { verb, target, query, request } = call;
    switch (verb) {
      case 'get': {
        if (target.subresource === 'log') {
          const text = await podLog(api, target, query);
          response.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-cache, private', 'Content-Length': Buffer.byteLength(text) });
          return void response.end(text);
        }
        const object = api.get(target);
        const table = target.subresource === undefined ? tableVersion(request.headers.accept) : undefined;
        if (!table) return writeObject(request, response, 200, object);
        return writeJson(response, 200, toTable(target.type, [object], { version: table, resourceVersion: object.metadata.resourceVersion, include: includeObjectOf(query.get('includeObject')) }));
      }
      case 'list': {
        const list = api.list(target, {
          labelSelector: optional(query.get('labelSelector')),
          fieldSelector: optional(query.get('fieldSelector')),
          limit: limitOf(query),
          continueToken: optional(query.get('continue')),
        });
        const table = tableVersion(request.headers.accept);
        if (!table) return writeObject(request, response, 200, list);
        const meta = list.metadata as { resourceVersion?: string; continue?: string };
        return writeJson(
          response,
          200,
          toTable(target.type, list.items as KubeObject[], {
            version: table,
            resourceVersion: meta.resourceVersion,
            continueToken: meta.continue,
            include: includeObjectOf(query.get('includeObject')),
          }),
        );
      }
      case 'watch':
        return startWatch(call, response);
      case 'create': {
        const options = writeOptionsOf(call, false);
        const body = parseBody(await readBody(request), mediaType(request));
        // Admission may run the write twice (a dry run for the review, then the real one): the
        // Warning headers are those of the last run.
        let warnings: string[] = [];
        const created = await admitted(call, 'create', options, body, (dryRun) => api.create(target, body, { ...options, dryRun, warnings: (warnings = []) }));
        return writeObject(request, response, 201, created, warnings);
      }
      case 'update': {
        const options = writeOptionsOf(call, false);
        const body = parseBody(await readBody(request), mediaType(request));
        let warnings: string[] = [];
        const replaced = await admitted(call, 'update', options, body, (dryRun) => api.replace(target, body, { ...options, dryRun, warnings: (warnings = []) }));
        return writeObject(request, response, 200, replaced, warnings);
      }
      case 'patch': {
        const patchType = PATCH_TYPES[mediaType(request)];
        if (!patchType) {
          throw unsupportedMediaType(
            `the body of the request was in an unknown format - accepted media types include: ${Object.keys(PATCH_TYPES).join(', ')}`,
          );
        }
        const options = writeOptionsOf(call, patchType === 'apply');
        const raw = await readBody(request);
        const patch = parseBody(raw, patchType === 'apply' ? 'application/yaml' : 'application/json');
        // An apply that creates the object answers 201, as on a real server (the last run is the real one).
        let existed = true;
        let warnings: string[] = [];
        const patched = await admitted(call, 'patch', options, patch, (dryRun) => {
          existed = patchType !== 'apply' || api.exists(target);
          return api.patch(target, patchType, patch, { ...options, dryRun, warnings: (warnings = []) });
        });
        return writeObject(request, response, existed ? 200 : 201, patched, warnings);
      }
      case 'delete':
      case 'deletecollection': {
        const body = parseBody(await readBody(request), 'application/json');
        const deleteOptions: DeleteOptions = { dryRun: dryRunOf(query), propagationPolicy: propagationPolicyOf(body, query) };
        if (isObject(body)) {
          if (isObject(body.preconditions)) deleteOptions.preconditions = body.preconditions as DeleteOptions['preconditions'];
          if (Array.isArray(body.dryRun) && body.dryRun.includes('All')) deleteOptions.dryRun = true;
        }
        if (verb === 'delete') {
          const deleted = await admitted(call, 'delete', deleteOptions, undefined, (dryRun) => api.delete(target, { ...deleteOptions, dryRun }));
          return writeObject(request, response, 200, deleted);
        }
        const listOptions = {
          labelSelector: optional(query.get('labelSelector')),
          fieldSelector: optional(query.get('fieldSelector')),
        };
        return writeObject(request, response, 200, api.deleteCollection(target, listOptions, deleteOptions));
      }
    }
  }

  function startWatch(call: Call, response: ServerResponse): void {
    const { target, query } = call;
    // `kubectl get -w` asks for Tables: each event then carries a one-row Table, the first with
    // the column definitions.
    const table = tableVersion(call.request.headers.accept);
    let headers = true;
    const encode = (event: WatchEvent): string => {
      if (!table || event.type === 'ERROR' || event.type === 'BOOKMARK') return JSON.stringify(event);
      const object = event.object as KubeObject;
      const rows = toTable(target.type, [object], { version: table, resourceVersion: object.metadata.resourceVersion, include: includeObjectOf(query.get('includeObject')), headers });
      headers = false;
      return JSON.stringify({ type: event.type, object: rows });
    };
    // Events emitted while the watch starts (replay, initial state) wait until the 200 is written,
    // so that a bad selector or resourceVersion can still be answered with a plain Status.
    let buffered: WatchEvent[] | undefined = [];
    const send = (event: WatchEvent): void => {
      if (buffered) buffered.push(event);
      else if (!response.writableEnded) response.write(`${encode(event)}\n`);
    };
    const started = api.watch(
      target,
      {
        resourceVersion: optional(query.get('resourceVersion')),
        labelSelector: optional(query.get('labelSelector')),
        fieldSelector: optional(query.get('fieldSelector')),
        allowWatchBookmarks: truthy(query.get('allowWatchBookmarks')),
        sendInitialEvents: truthy(query.get('sendInitialEvents')),
      },
      send,
    );
    response.writeHead(200, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-cache, private',
      'Transfer-Encoding': 'chunked',
    });
    response.flushHeaders();
    if (started.kind === 'expired') {
      response.end(`${JSON.stringify({ type: 'ERROR', object: started.status })}\n`);
      return;
    }
    const pending = buffered;
    buffered = undefined;
    for (const event of pending) response.write(`${encode(event)}\n`);

    watches.add(response);
    let timer: NodeJS.Timeout | undefined;
    const finish = (): void => {
      started.stop();
      watches.delete(response);
      if (timer) clearTimeout(timer);
      if (!response.writableEnded) response.end();
    };
    const timeout = Number(query.get('timeoutSeconds') ?? '');
    if (Number.isFinite(timeout) && timeout > 0) timer = setTimeout(finish, timeout * 1000);
    // Periodic bookmarks, as the watch cache sends them to watchers that allow them.
    const bookmarks = truthy(query.get('allowWatchBookmarks'))
      ? setInterval(() => send(api.bookmark(target)), options.bookmarkIntervalMs ?? 60_000)
      : undefined;
    response.on('close', () => clearInterval(bookmarks));
    // The response's close is the connection's (the client aborted); the request's fires as soon
    // as its (empty) body is read.
    response.on('close', finish);
  }

  async function admin(segments: string[], method: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const { adminToken } = options;
    if (!adminToken) throw pathNotFound();
    if (!authorized(request, adminToken)) throw unauthorized();
    const id = segments[2];
    if (segments.length > 3) throw pathNotFound();
    if (method === 'GET' && id === undefined) {
      const items = options.faults.list().map((f) => ({ ...f, rule: { ...f.rule, path: String(f.rule.path) } }));
      return writeJson(response, 200, { items });
    }
    if (method === 'POST' && id === undefined) {
      let rule;
      try {
        rule = parseFaultRule(parseBody(await readBody(request), 'application/json'));
      } catch (error) {
        throw error instanceof StatusError ? error : badRequest((error as Error).message);
      }
      return writeJson(response, 201, options.faults.add(rule));
    }
    if (method === 'DELETE') {
      if (id === undefined) options.faults.clear();
      else if (!options.faults.remove(id)) throw pathNotFound();
      return writeJson(response, 200, {});
    }
    throw methodNotAllowed();
  }

  /** /openapi/v2 (JSON; the protobuf form is not served) and /openapi/v3[/api/v1 | /apis/group/version]. */
  function serveOpenApi(segments: string[], method: string, request: IncomingMessage, response: ServerResponse): void {
    if (method !== 'GET') throw methodNotAllowed();
    if (segments[0] === 'v2' && segments.length === 1) {
      const accept = request.headers.accept ?? '*/*';
      if (!/application\/json|\*\/\*/.test(accept)) throw new StatusError(406, 'NotAcceptable', `only the following media types are accepted: application/json`);
      return writeJson(response, 200, openApiV2(registry));
    }
    if (segments[0] !== 'v3') throw pathNotFound();
    const document = segments.length === 1 ? openApiV3Root(registry) : openApiV3ForPath(registry, segments.slice(1));
    if (!document) throw pathNotFound();
    return writeJson(response, 200, document);
  }

  /** Runs the call under the fault a rule sets for it, if any. */
  async function executeWithFaults(call: Call, path: string, response: ServerResponse): Promise<void> {
    const fault = options.faults.match(call.verb, path);
    if (!fault) return execute(call, response);
    switch (fault.type) {
      case 'error':
        throw injectedError(fault);
      case 'delay':
        await new Promise((resolve) => setTimeout(resolve, fault.ms));
        return execute(call, response);
      case 'reset':
        call.request.socket.destroy();
        return;
      case 'lose-response':
        silence(response);
        await execute(call, response).catch(() => undefined);
        call.request.socket.destroy();
        return;
    }
  }

  function handle(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://emulator');
    const method = (request.method ?? 'GET').toUpperCase();
    const run = async (): Promise<void> => {
      if (url.pathname === '/admin/faults' || url.pathname.startsWith('/admin/faults/')) {
        return admin(url.pathname.split('/').filter((s) => s !== ''), method, request, response);
      }
      const user = requestUser(options, request, url.pathname);
      // E9: authorization comes before routing, as in the real handler chain: a caller who may
      // not ask gets 403 whether or not the path exists.
      if (user) {
        const attributes = requestAttributes(user, method, url);
        const decision = options.authorizer.authorize(attributes);
        if (!decision.allowed) throw forbiddenError(attributes, decision.reason);
      }
      let segments: string[];
      try {
        segments = url.pathname.split('/').filter((s) => s !== '').map(decodeURIComponent);
      } catch {
        throw pathNotFound();
      }
      const first = segments[0];
      if (first === 'healthz' || first === 'livez' || first === 'readyz') {
        response.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
        response.end('ok');
        return;
      }
      if (first === 'version' && segments.length === 1) return writeJson(response, 200, VERSION_INFO);
      if (segments.length === 0) {
        return writeJson(response, 200, { paths: ['/api', '/api/v1', '/apis', '/healthz', '/livez', '/openapi/v2', '/openapi/v3', '/readyz', '/version'] });
      }
      if (first === 'openapi') return serveOpenApi(segments.slice(1), method, request, response);
      if (first !== 'api' && first !== 'apis') throw pathNotFound();
      if (!user) throw unauthorized();
      const [, version, namespacesPath, namespace, serviceAccounts, name, token, ...more] = segments;
      if (first === 'api' && version === 'v1' && namespacesPath === 'namespaces' && serviceAccounts === 'serviceaccounts' && token === 'token' && more.length === 0) {
        if (method !== 'POST') throw methodNotAllowed();
        const body = parseBody(await readBody(request), mediaType(request));
        return writeObject(request, response, 201, options.requestToken(namespace ?? '', name ?? '', body));
      }
      const review = reviewResource(segments);
      if (review) {
        if (method !== 'POST') throw methodNotAllowed();
        const body = parseBody(await readBody(request), mediaType(request));
        return writeJson(response, 201, answerReview(options.authorizer, review.resource, user, body, review.namespace));
      }
      const resolved = route(segments, method, url.searchParams, request, user);
      if ('document' in resolved) {
        if (method !== 'GET') throw methodNotAllowed();
        return writeJson(response, 200, resolved.document);
      }
      await executeWithFaults(resolved, url.pathname, response);
    };
    run().catch((error: unknown) => {
      const status = error instanceof StatusError ? error.status : internalError(String((error as Error)?.message ?? error)).status;
      if (response.headersSent) {
        response.end();
        return;
      }
      writeStatus(response, status);
    });
  }

  return {
    handle,
    endWatches() {
      for (const response of [...watches]) response.end();
      watches.clear();
    },
  };
}
