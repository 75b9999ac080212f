import { strict as assert } from 'node:assert';
import { applyDecorators, HttpStatus, RequestMethod } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { ApiExtension, ApiHeader, ApiOperation, type ApiOperationOptions, ApiResponse } from '@nestjs/swagger';
import { PUBLIC_ROUTE } from '../../auth/permissions';

// One decorator per route says what the OpenAPI document needs that the route decorators do not:
// the reference's operationId, the statuses the route answers and the headers it reads. The
// response bodies are the reference's (completeWithReference), so they are not repeated here.

/** The tag every Corridor addition to the reference is listed under (and the mark the conformance suite reads). */
export const EXTENSION_TAG = 'Corridor Extensions';
export const EXTENSION_MARK = 'x-corridor-extension';
/** Marks a route that takes no credential; completeWithReference turns it into `security: []` and drops the mark. */
export const PUBLIC_MARK = 'x-corridor-public';

type OperationOptions = {
  /**
   * signedRetry: without Grid-Wallet-Signature and Request-Id an Embedded Wallet answers a 202 challenge, then the same
   * request, signed, is done. signedCall: one call carries Grid-Wallet-Signature over a payload the client already has.
   */
  signature?: 'signedRetry' | 'signedCall';
};

const API_OPERATION_METADATA = 'swagger/apiOperation';

const walletSignature = ApiHeader({
  name: 'Grid-Wallet-Signature',
  required: false,
  description:
    'The signed retry of an Embedded Wallet: an API-key stamp over the payloadToSign of the prior 202, made with the session key of a ' +
    'verified authentication credential of the wallet. Ignored when no Embedded Wallet is involved.',
});

const requestId = ApiHeader({
  name: 'Request-Id',
  required: false,
  description:
    'The requestId of the prior 202, echoed on the signed retry so it is matched with its challenge; sent with Grid-Wallet-Signature.',
});

const signedRetryChallenge = ApiResponse({
  status: HttpStatus.ACCEPTED,
  description: 'The wallet’s signed retry: {payloadToSign, requestId, expiresAt}. Nothing was done; send the same request again, signed.',
});

/** Nest answers a route's @HttpCode, or 201 for POST and 200 otherwise; the document says the same. */
const successStatusOf = (handler: object): number => {
  const declared = Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined;
  if (declared !== undefined) return declared;
  return Reflect.getMetadata(METHOD_METADATA, handler) === RequestMethod.POST ? HttpStatus.CREATED : HttpStatus.OK;
};

const describeOperation =
  (operationId: string, options: OperationOptions, extra: MethodDecorator[]): MethodDecorator =>
  (target, key, descriptor) => {
    const handler = descriptor.value as object;
    // Decorators apply bottom-up: sitting above @Get/@Post/@HttpCode, this one sees what they declared.
    assert(
      Reflect.getMetadata(METHOD_METADATA, handler) !== undefined,
      `@…Operation('${operationId}') must sit above the route's @Get/@Post/….`,
    );
    // A route's own @ApiOperation (a summary, a description of a departure) is kept; only the id is added.
    const described = (Reflect.getMetadata(API_OPERATION_METADATA, handler) ?? {}) as ApiOperationOptions;
    applyDecorators(
      ApiOperation({ ...described, operationId }),
      ApiResponse({ status: successStatusOf(handler), description: 'Success' }),
      ...(options.signature === 'signedRetry' ? [signedRetryChallenge, walletSignature, requestId] : []),
      ...(options.signature === 'signedCall' ? [walletSignature] : []),
      ...(Reflect.getMetadata(PUBLIC_ROUTE, handler) === true ? [ApiExtension(PUBLIC_MARK, true)] : []),
      ...extra,
    )(target, key, descriptor);
  };

/** A route the reference defines: `operationId` is the reference's, so a client generated from either document has the same calls. */
export const ReferenceOperation = (operationId: string, options: OperationOptions = {}): MethodDecorator =>
  describeOperation(operationId, options, []);

/**
 * A route Corridor adds to the reference: listed under its own tag and marked, so a client can tell it will not find it on other servers.
 */
export const ExtensionOperation = (operationId: string, options: OperationOptions = {}): MethodDecorator =>
  describeOperation(operationId, options, [ApiExtension(EXTENSION_MARK, true)]);
