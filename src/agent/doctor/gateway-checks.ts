/** The doctor's gateway checks: `/healthz` answers, then the agent WebSocket accepts the token (no hello). */
import WebSocket from 'ws';
import type { AgentFileConfig } from '../../config/schema.js';
import { errorCodes } from '../../database-errors.js';
import { AGENT_PATH } from '../../protocol/messages.js';
import { httpGet, readText } from '../http-get.js';
import { errorMessage, fullMessage, skipped, type DoctorItem } from './report.js';

const TLS_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_NOT_YET_VALID',
]);

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export async function checkGateway(config: AgentFileConfig, timeoutMs: number): Promise<DoctorItem[]> {
  const base = { id: 'gateway', title: 'Gateway', essential: true } as const;
  const healthUrl = new URL('/healthz', config.gatewayUrl);
  let item: DoctorItem;
  const started = Date.now();
  try {
    const res = await httpGet(healthUrl, { timeoutMs });
    const status = res.statusCode ?? 0;
    const body = parseJson(await readText(res)) as { version?: unknown } | null;
    item =
      status >= 200 && status < 300
        ? {
            ...base,
            status: 'pass',
            message: `${healthUrl.origin} answered in ${Date.now() - started} ms${typeof body?.version === 'string' ? ` (gateway ${body.version})` : ''}`,
          }
        : {
            ...base,
            status: 'fail',
            cause: 'bad-answer',
            message: `${healthUrl.href} answered HTTP ${status}`,
            advice: 'Something answers at agent.gatewayUrl but it is not a healthy gateway: check the URL (scheme, host, port) and any proxy in between.',
          };
  } catch (error) {
    const codes = errorCodes(error);
    const timedOut = (error as Error)?.name === 'TimeoutError';
    const tls = codes.find((c) => TLS_CODES.has(c));
    item = {
      ...base,
      status: 'fail',
      cause: tls ? 'tls' : 'unreachable',
      message: `${healthUrl.origin} not reachable: ${timedOut ? `no answer within ${timeoutMs / 1000} s` : fullMessage(error)}`,
      advice: tls
        ? `The gateway's TLS certificate is not trusted here (${tls}): check the machine's date and time, and whether a proxy or antivirus inspects HTTPS.`
        : codes.includes('ENOTFOUND') || codes.includes('EAI_AGAIN')
          ? `The host name of agent.gatewayUrl does not resolve: check the URL and this machine's DNS.`
          : codes.includes('ECONNREFUSED')
            ? 'The host answers but nothing accepts connections on that port: check the port in agent.gatewayUrl, or the gateway is down. The running agent keeps retrying by itself.'
            : "Check agent.gatewayUrl, this machine's internet access and the firewall (outbound HTTPS). The running agent keeps retrying by itself.",
    };
  }
  if (item.status !== 'pass') return [item, skipped('token', 'Agent token', true, 'not checked: the gateway is not reachable')];
  return [item, await checkToken(config, timeoutMs)];
}

/** Opens the agent WebSocket with the token and closes it as soon as the gateway accepts it (no hello). */
async function checkToken(config: AgentFileConfig, timeoutMs: number): Promise<DoctorItem> {
  const base = { id: 'token', title: 'Agent token', essential: true } as const;
  const url = new URL(AGENT_PATH, config.gatewayUrl.replace(/^http/, 'ws'));
  return new Promise<DoctorItem>((resolve) => {
    let settled = false;
    const settle = (item: DoctorItem) => {
      if (settled) return;
      settled = true;
      resolve(item);
    };
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${config.token}` }, handshakeTimeout: timeoutMs });
    ws.on('open', () => {
      settle({ ...base, status: 'pass', message: `accepted by the gateway for ${url.origin}${AGENT_PATH}` });
      ws.close(1000, 'doctor');
    });
    ws.on('unexpected-response', (req, res) => {
      const status = res.statusCode ?? 0;
      res.resume();
      req.destroy();
      settle(
        status === 401
          ? {
              ...base,
              status: 'fail',
              cause: 'token-refused',
              message: 'the gateway refused the token (HTTP 401)',
              advice:
                `Put the token printed by \`branch-agent keys add-branch -k ${config.licenseKey}\` in agent.token (or AGENT_TOKEN); ` +
                'running add-branch again issues a new token and invalidates the old one.',
            }
          : {
              ...base,
              status: 'fail',
              cause: status === 503 ? 'gateway-unavailable' : 'bad-answer',
              message: `the gateway answered HTTP ${status} to the agent connection`,
              advice:
                status === 503
                  ? 'The gateway could not check the token (its store is down): try again later.'
                  : `Check that agent.gatewayUrl is the gateway itself (it serves ${AGENT_PATH}).`,
            },
      );
    });
    ws.on('error', (error) =>
      settle({
        ...base,
        status: 'fail',
        cause: 'unreachable',
        message: `WebSocket to ${url.origin}${AGENT_PATH} failed: ${errorMessage(error)}`,
        advice: 'A proxy may block WebSocket upgrades: allow them to the gateway.',
      }),
    );
  });
}
