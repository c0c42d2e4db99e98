// A local Secrets Manager answering GetSecretValue (AWS JSON 1.1) for the secrets it is given:
// where the PrometheusMetric bearer tokens come from in tests and the local stack.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer, readAwsJsonRequest } from '../shared/aws-json-protocol.js';

export interface LocalSecrets {
  url: string;
  /** GetSecretValue calls answered. */
  reads: number;
  close(): Promise<void>;
}

export async function startLocalSecrets(secrets: Record<string, string>): Promise<LocalSecrets> {
  const state = { reads: 0 };
  const server: Server = createServer((req, res) => {
    void readAwsJsonRequest(req, 'secretsmanager.').then(({ operation, body }) => {
      const reply = (status: number, payload: unknown) => res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(payload));
      if (operation !== 'GetSecretValue') return reply(400, { __type: 'InvalidRequestException', message: `unsupported operation ${operation}` });
      const id = String((JSON.parse(body.toString() || '{}') as { SecretId?: unknown }).SecretId ?? '');
      state.reads++;
      if (!(id in secrets)) return reply(400, { __type: 'ResourceNotFoundException', message: "Secrets Manager can't find the specified secret." });
      return reply(200, { ARN: id, Name: id.split(':').pop(), SecretString: secrets[id], VersionId: 'v1', VersionStages: ['AWSCURRENT'] });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get reads() {
      return state.reads;
    },
    close: () => closeServer(server),
  };
}
