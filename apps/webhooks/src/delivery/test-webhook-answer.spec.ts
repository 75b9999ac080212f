// Pins down what the sandbox test webhook reports: the status always, the body only when the
// answer came from a public address (never a private or loopback service's contents).
import { testWebhookAnswer } from './test-webhook-answer';

const url = 'https://hooks.example.com/corridor';

describe('testWebhookAnswer', () => {
  it('given an answer from a public address, then the status and the body', () => {
    const answer = testWebhookAnswer(url, { statusCode: 200, responseBody: '{"ok":true}', peerAddress: '93.184.215.14', latencyMs: 3 });
    expect(answer).toEqual({ url, response_status: 200, response_body: '{"ok":true}' });
  });

  const privatePeers = ['127.0.0.1', '::ffff:10.1.2.3', '169.254.169.254', 'fd00:ec2::254', '::1'];
  it.each(privatePeers)('given an answer from %s, then the status without the body', (peerAddress) => {
    const answer = testWebhookAnswer(url, { statusCode: 200, responseBody: 'internal secrets', peerAddress, latencyMs: 3 });
    expect(answer).toEqual({ url, response_status: 200 });
  });

  it('given an answer whose address is unknown, then the status without the body', () => {
    expect(testWebhookAnswer(url, { statusCode: 404, responseBody: 'x', latencyMs: 3 })).toEqual({ url, response_status: 404 });
  });

  it('given no answer, then nothing to report', () => {
    expect(testWebhookAnswer(url, { error: 'ECONNREFUSED', latencyMs: 1 })).toBeUndefined();
  });
});
