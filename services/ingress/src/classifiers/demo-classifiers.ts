import countries from 'i18n-iso-countries';
import currencyCodes from 'currency-codes';
import type { ClassifierDoc, ClassifierName } from './classifier-names';

/**
 * Defaults for the demo business unit: ISO 3166 countries and ISO 4217 currencies from maintained
 * packages, and sensible starting lists for the institution-specific classifiers (an institution
 * replaces them with its own).
 */
export function demoClassifiers(businessUnit: string): ClassifierDoc[] {
  const docs: ClassifierDoc[] = [];
  const add = (classifier: ClassifierName, code: string, text: { title?: string; description?: string }) =>
    docs.push({ _id: `${businessUnit}:${classifier}:${code}`, businessUnit, classifier, code, ...text });

  for (const [code, name] of Object.entries(countries.getNames('en', { select: 'official' }))) {
    add('country', code, { description: name });
  }
  for (const c of currencyCodes.data) add('currency', c.code, { description: c.currency });

  const described = (classifier: ClassifierName, entries: [string, string][]) =>
    entries.forEach(([code, description]) => add(classifier, code, { description }));
  described('addressType', [
    ['RESIDENTIAL', 'Residential address'],
    ['ACTUAL', 'Actual (living) address'],
    ['CORRESPONDENCE', 'Correspondence address'],
    ['REGISTERED', 'Registered office address'],
    ['BUSINESS', 'Place of business'],
  ]);
  described('accountType', [
    ['CURRENT', 'Current account'],
    ['SAVINGS', 'Savings account'],
    ['DEPOSIT', 'Term deposit account'],
    ['LOAN', 'Loan account'],
    ['CARD', 'Card account'],
    ['PAYMENT', 'Payment account'],
  ]);
  [
    ['SALARY', 'Salary and wages'],
    ['GOODS', 'Payment for goods'],
    ['SERVICES', 'Payment for services'],
    ['LOAN_REPAYMENT', 'Loan repayment'],
    ['INVESTMENT', 'Investment'],
    ['TAXES', 'Taxes and duties'],
    ['RENT', 'Rent'],
    ['PERSONAL_TRANSFER', 'Transfer between own or family accounts'],
    ['DIVIDENDS', 'Dividends'],
    ['OTHER', 'Other'],
  ].forEach(([code, title]) => add('paymentPurposeType', code!, { title: title! }));
  described('sourceOfWealth', [
    ['1', 'Employment income'],
    ['2', 'Business income'],
    ['3', 'Inheritance'],
    ['4', 'Sale of property or assets'],
    ['5', 'Investments and dividends'],
    ['6', 'Savings'],
    ['7', 'Gift'],
    ['8', 'Pension'],
    ['9', 'Other'],
  ]);
  described('riskManagementCategory', [
    ['IND', 'Individual customer'],
    ['ORG', 'Organization customer'],
    ['IND_OCCASIONAL', 'Occasional individual customer (no contract)'],
    ['ORG_OCCASIONAL', 'Occasional organization customer (no contract)'],
    ['LEAD_IND', 'Individual lead'],
    ['LEAD_ORG', 'Organization lead'],
  ]);
  return docs;
}
