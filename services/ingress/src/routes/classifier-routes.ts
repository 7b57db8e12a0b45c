import { Router } from 'express';
import type { TokenVerifier } from '@crs/auth';
import { allowedBusinessUnits } from '@crs/auth';
import { ErrorCodes, FieldProblems } from '@crs/contracts';
import { RequestInvalidError, fieldError } from '@crs/http';
import { authenticate, assertBusinessUnit, principalOf } from '../http/auth-middleware';
import type { ClassifierStore } from '../classifiers/classifier-store';
import type { ClassifierName } from '../classifiers/classifier-names';

const PATHS: Record<string, ClassifierName> = {
  paymentPurposeType: 'paymentPurposeType',
  accountType: 'accountType',
  addressType: 'addressType',
  sourceOfWealth: 'sourceOfWealth',
  currency: 'currency',
  country: 'country',
  riskManagementCategory: 'riskManagementCategory',
};

/**
 * GET /classifier/<name>: the entries of the caller's business unit. `businessUnit` may be given as a
 * query parameter; without it the token must name exactly one business unit.
 */
export function classifierRoutes(deps: { verifier: TokenVerifier; classifiers: ClassifierStore }): Router {
  const router = Router();
  router.get('/classifier/:name', authenticate(deps.verifier, 'classifiers:read'), async (req, res, next) => {
    const classifier = PATHS[req.params.name as string];
    if (!classifier) {
      next();
      return;
    }
    let businessUnit = typeof req.query.businessUnit === 'string' ? req.query.businessUnit : undefined;
    if (!businessUnit) {
      const allowed = allowedBusinessUnits(principalOf(req));
      if (allowed === '*' || allowed.length !== 1) {
        throw new RequestInvalidError(
          ErrorCodes.ValidationFailed,
          'businessUnit query parameter is required for tokens of several business units',
          [fieldError('businessUnit', FieldProblems.Required, 'businessUnit is required')],
        );
      }
      businessUnit = allowed[0]!;
    }
    assertBusinessUnit(req, businessUnit);
    const docs = await deps.classifiers.list(businessUnit, classifier);
    // Interface 2.4: paymentPurposeType entries carry title, every other classifier description.
    const descriptive = classifier !== 'paymentPurposeType';
    res.json(
      docs.map((d) =>
        descriptive
          ? { code: d.code, description: d.description ?? d.title ?? '', businessUnit: d.businessUnit }
          : { code: d.code, title: d.title ?? d.description ?? '', businessUnit: d.businessUnit },
      ),
    );
  });
  return router;
}
