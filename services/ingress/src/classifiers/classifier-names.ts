/** Classifiers kept per business unit (section 2.4 of the spec plus the ones field rules refer to). */
export const ClassifierNames = [
  'country',
  'currency',
  'addressType',
  'accountType',
  'paymentPurposeType',
  'sourceOfWealth',
  'riskManagementCategory',
] as const;
export type ClassifierName = (typeof ClassifierNames)[number];

export interface ClassifierDoc {
  _id: string;
  businessUnit: string;
  classifier: ClassifierName;
  code: string;
  title?: string;
  description?: string;
}
