import {
  type ArgumentMetadata,
  createParamDecorator,
  type ExecutionContext,
  Injectable,
  type PipeTransform,
  type Type,
  ValidationPipe,
  type ValidationError,
} from '@nestjs/common';
import { ValidateBy, ValidateIf } from 'class-validator';
import { DomainError, invalidInput, isIdOf, type MinorUnitsRule, parseMinorUnits } from '@corridor/contracts';

export type FieldProblem = { field: string; problem: string };

const MAX_DEPTH = 32;

export function fieldProblems(errors: ValidationError[], parent = ''): FieldProblem[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((problem) => ({ field, problem }));
    return [...own, ...fieldProblems(error.children ?? [], field)];
  });
}

export const invalidFields = (problems: FieldProblem[]): DomainError =>
  invalidInput(`The request is invalid: ${problems.map((entry) => entry.problem).join('; ')}.`, { errors: problems });

/** class-validator with unknown members rejected, so a typo never silently drops a field. */
export const createValidationPipe = (): ValidationPipe =>
  new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => invalidFields(fieldProblems(errors)),
  });

// PostgreSQL text cannot hold NUL, and a service would answer it with a 500; such input is
// refused here, along with structures nested deeper than any request of this API needs.
const findUnstorable = (value: unknown, path: string, depth: number): FieldProblem | undefined => {
  if (depth > MAX_DEPTH) return { field: path || '(body)', problem: `${path || 'the body'} is nested more than ${MAX_DEPTH} levels deep` };
  if (typeof value === 'string') {
    return value.includes('\u0000') ? { field: path, problem: `${path} must not contain NUL characters` } : undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, member] of Object.entries(value)) {
    const problem = findUnstorable(member, path ? `${path}.${key}` : key, depth + 1);
    if (problem) return problem;
  }
  return undefined;
};

/** Runs before class-validator on every body and query: the shape checks it cannot express. */
@Injectable()
export class InputShapePipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type !== 'body' && metadata.type !== 'query') return value;
    if (metadata.type === 'body' && (typeof value !== 'object' || value === null || Array.isArray(value))) {
      throw invalidFields([{ field: '(body)', problem: 'the request body must be a JSON object' }]);
    }
    const problem = findUnstorable(value, '', 0);
    if (problem) throw invalidFields([problem]);
    return value;
  }
}

/**
 * The body of a route whose body the reference makes optional (requestBody not required): none
 * reads as {} (create-gateway.ts drops the Content-Type of a request without a body, so an empty
 * body with or without one is the same as none), anything else is checked as @Body() checks a
 * required body. A parameter decorator of its own, because the global pipes refuse a missing body.
 */
export const OptionalBody = (metatype: Type<object>): ParameterDecorator => bodyAsSent(new OptionalBodyPipe(metatype));

const bodyAsSent = createParamDecorator(
  (_data: unknown, host: ExecutionContext): unknown => host.switchToHttp().getRequest<{ body?: unknown }>().body,
);

class OptionalBodyPipe implements PipeTransform {
  private readonly shape = new InputShapePipe();
  private readonly validation = createValidationPipe();

  constructor(private readonly metatype: Type<object>) {}

  transform(value: unknown): Promise<unknown> {
    const metadata: ArgumentMetadata = { type: 'body', metatype: this.metatype };
    return this.validation.transform(this.shape.transform(value ?? {}, metadata), metadata);
  }
}

/** Validates a oneOf body against the class its discriminator names (e.g. customerType). */
export class DiscriminatedBodyPipe implements PipeTransform {
  private readonly validation = createValidationPipe();

  constructor(
    private readonly discriminator: string,
    private readonly variants: Record<string, Type<object>>,
  ) {}

  transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const tag = (value as Record<string, unknown>)[this.discriminator];
    const variant = typeof tag === 'string' && Object.prototype.hasOwnProperty.call(this.variants, tag) ? this.variants[tag] : undefined;
    if (!variant) {
      const allowed = Object.keys(this.variants).join(', ');
      throw invalidFields([
        { field: this.discriminator, problem: `${this.discriminator} must be one of the following values: ${allowed}` },
      ]);
    }
    return this.validation.transform(value, { ...metadata, metatype: variant });
  }
}

const shown = (value: unknown): string => String(value).slice(0, 80);

/** A path id that is not `<Type>:<uuid>` cannot name anything, so it is answered as not found. */
export class IdPipe implements PipeTransform<unknown, string> {
  constructor(
    private readonly type: string,
    private readonly notFoundCode: string,
    private readonly label: string,
  ) {}

  transform(value: unknown): string {
    if (isIdOf(this.type, value)) return value;
    throw new DomainError(
      this.notFoundCode,
      'not_found',
      `${this.label} ${shown(value)} was not found. Ids look like ${this.type}:<uuid>.`,
    );
  }
}

/**
 * "May be left out", but not null: class-validator's IsOptional also lets null through, and a
 * null in a PATCH would erase a field the reference says cannot be erased.
 */
export const Optional = (): PropertyDecorator => ValidateIf((_object, value) => value !== undefined);

/** "May be left out, or null to clear it": for the few fields a platform may unset. */
export const Clearable = (): PropertyDecorator => ValidateIf((_object, value) => value !== undefined && value !== null);

/** What parseMinorUnits says is wrong with an amount, without its closing full stop; undefined when it reads. */
const minorUnitsProblem = (value: unknown, rule: MinorUnitsRule): string | undefined => {
  try {
    parseMinorUnits(value, rule);
    return undefined;
  } catch (error) {
    if (error instanceof DomainError) return error.message.replace(/\.$/, '');
    throw error;
  }
};

/** An amount the gateway takes as text (a query parameter, which a JS number could round), read by the one parser of amounts. */
export const IsMinorUnits = (rule: MinorUnitsRule): PropertyDecorator =>
  ValidateBy({
    name: 'isMinorUnits',
    validator: {
      validate: (value) => minorUnitsProblem(value, rule) === undefined,
      defaultMessage: (args) => minorUnitsProblem(args?.value, rule) ?? `${rule.field} is invalid`,
    },
  });
