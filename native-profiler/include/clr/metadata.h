#pragma once
// Metadata tokens and the read side of the metadata API (IMetaDataImport/IMetaDataImport2), which
// is how a ModuleID + mdMethodDef from the profiling API becomes "Namespace.Type.Method".
// Token and attribute values are ECMA-335 (Partition II) facts, as the runtime spells them.
#include "clr/unknown.h"

namespace clr {

// ---- Tokens: top byte is the table, low 24 bits the row (1-based; 0 means nil). ----
using mdToken = std::uint32_t;
using mdModule = mdToken;
using mdTypeRef = mdToken;
using mdTypeDef = mdToken;
using mdFieldDef = mdToken;
using mdMethodDef = mdToken;
using mdParamDef = mdToken;
using mdInterfaceImpl = mdToken;
using mdMemberRef = mdToken;
using mdCustomAttribute = mdToken;
using mdPermission = mdToken;
using mdSignature = mdToken;
using mdEvent = mdToken;
using mdProperty = mdToken;
using mdModuleRef = mdToken;
using mdAssembly = mdToken;
using mdAssemblyRef = mdToken;
using mdFile = mdToken;
using mdExportedType = mdToken;
using mdManifestResource = mdToken;
using mdTypeSpec = mdToken;
using mdGenericParam = mdToken;
using mdMethodSpec = mdToken;
using mdGenericParamConstraint = mdToken;
using mdString = mdToken;

enum CorTokenType : std::uint32_t {
  mdtModule = 0x00000000,
  mdtTypeRef = 0x01000000,
  mdtTypeDef = 0x02000000,
  mdtFieldDef = 0x04000000,
  mdtMethodDef = 0x06000000,
  mdtParamDef = 0x08000000,
  mdtInterfaceImpl = 0x09000000,
  mdtMemberRef = 0x0a000000,
  mdtCustomAttribute = 0x0c000000,
  mdtPermission = 0x0e000000,
  mdtSignature = 0x11000000,
  mdtEvent = 0x14000000,
  mdtProperty = 0x17000000,
  mdtModuleRef = 0x1a000000,
  mdtTypeSpec = 0x1b000000,
  mdtAssembly = 0x20000000,
  mdtAssemblyRef = 0x23000000,
  mdtFile = 0x26000000,
  mdtExportedType = 0x27000000,
  mdtManifestResource = 0x28000000,
  mdtGenericParam = 0x2a000000,
  mdtMethodSpec = 0x2b000000,
  mdtGenericParamConstraint = 0x2c000000,
  mdtString = 0x70000000,
  mdtName = 0x71000000,
  mdtBaseType = 0x72000000,
};

inline constexpr mdToken mdTokenNil = 0;
inline constexpr mdToken mdTypeDefNil = mdtTypeDef;
inline constexpr mdToken mdTypeRefNil = mdtTypeRef;
inline constexpr mdToken mdMethodDefNil = mdtMethodDef;

constexpr std::uint32_t TypeFromToken(mdToken tk) noexcept { return tk & 0xff000000u; }
constexpr std::uint32_t RidFromToken(mdToken tk) noexcept { return tk & 0x00ffffffu; }
constexpr bool IsNilToken(mdToken tk) noexcept { return RidFromToken(tk) == 0; }

// ---- TypeDef flags (GetTypeDefProps' pdwTypeDefFlags). ----
enum CorTypeAttr : std::uint32_t {
  tdVisibilityMask = 0x00000007,
  tdNotPublic = 0x00000000,
  tdPublic = 0x00000001,
  tdNestedPublic = 0x00000002,
  tdNestedPrivate = 0x00000003,
  tdNestedFamily = 0x00000004,
  tdNestedAssembly = 0x00000005,
  tdNestedFamANDAssem = 0x00000006,
  tdNestedFamORAssem = 0x00000007,

  tdLayoutMask = 0x00000018,
  tdAutoLayout = 0x00000000,
  tdSequentialLayout = 0x00000008,
  tdExplicitLayout = 0x00000010,

  tdClassSemanticsMask = 0x00000020,
  tdClass = 0x00000000,
  tdInterface = 0x00000020,

  tdAbstract = 0x00000080,
  tdSealed = 0x00000100,
  tdSpecialName = 0x00000400,
  tdImport = 0x00001000,
  tdSerializable = 0x00002000,
  tdWindowsRuntime = 0x00004000,

  tdStringFormatMask = 0x00030000,
  tdAnsiClass = 0x00000000,
  tdUnicodeClass = 0x00010000,
  tdAutoClass = 0x00020000,
  tdCustomFormatClass = 0x00030000,
  tdCustomFormatMask = 0x00C00000,

  tdBeforeFieldInit = 0x00100000,
  tdForwarder = 0x00200000,
};

// A type is nested exactly when its visibility is one of the tdNested* values; then
// GetNestedClassProps gives the enclosing type.
constexpr bool IsTdNested(DWORD flags) noexcept {
  return (flags & tdVisibilityMask) >= tdNestedPublic;
}

// ---- Signature blobs (ECMA-335 II.23.2), plus the two runtime-internal element types that can
// appear in signatures the runtime builds itself (dynamic methods, IL stubs). ----
using COR_SIGNATURE = BYTE;
using PCOR_SIGNATURE = COR_SIGNATURE*;
using PCCOR_SIGNATURE = const COR_SIGNATURE*;

enum CorElementType : std::uint32_t {
  ELEMENT_TYPE_END = 0x00,
  ELEMENT_TYPE_VOID = 0x01,
  ELEMENT_TYPE_BOOLEAN = 0x02,
  ELEMENT_TYPE_CHAR = 0x03,
  ELEMENT_TYPE_I1 = 0x04,
  ELEMENT_TYPE_U1 = 0x05,
  ELEMENT_TYPE_I2 = 0x06,
  ELEMENT_TYPE_U2 = 0x07,
  ELEMENT_TYPE_I4 = 0x08,
  ELEMENT_TYPE_U4 = 0x09,
  ELEMENT_TYPE_I8 = 0x0a,
  ELEMENT_TYPE_U8 = 0x0b,
  ELEMENT_TYPE_R4 = 0x0c,
  ELEMENT_TYPE_R8 = 0x0d,
  ELEMENT_TYPE_STRING = 0x0e,
  ELEMENT_TYPE_PTR = 0x0f,
  ELEMENT_TYPE_BYREF = 0x10,
  ELEMENT_TYPE_VALUETYPE = 0x11,
  ELEMENT_TYPE_CLASS = 0x12,
  ELEMENT_TYPE_VAR = 0x13,
  ELEMENT_TYPE_ARRAY = 0x14,
  ELEMENT_TYPE_GENERICINST = 0x15,
  ELEMENT_TYPE_TYPEDBYREF = 0x16,
  ELEMENT_TYPE_I = 0x18,
  ELEMENT_TYPE_U = 0x19,
  ELEMENT_TYPE_FNPTR = 0x1b,
  ELEMENT_TYPE_OBJECT = 0x1c,
  ELEMENT_TYPE_SZARRAY = 0x1d,
  ELEMENT_TYPE_MVAR = 0x1e,
  ELEMENT_TYPE_CMOD_REQD = 0x1f,
  ELEMENT_TYPE_CMOD_OPT = 0x20,
  ELEMENT_TYPE_INTERNAL = 0x21,       // followed by a pointer-sized runtime TypeHandle
  ELEMENT_TYPE_CMOD_INTERNAL = 0x22,  // followed by a required byte and a TypeHandle pointer
  ELEMENT_TYPE_MODIFIER = 0x40,
  ELEMENT_TYPE_SENTINEL = 0x41,
  ELEMENT_TYPE_PINNED = 0x45,
};

// First byte of a signature blob: low nibble is the kind, high bits are flags.
enum CorCallingConvention : std::uint32_t {
  IMAGE_CEE_CS_CALLCONV_DEFAULT = 0x0,
  IMAGE_CEE_CS_CALLCONV_C = 0x1,
  IMAGE_CEE_CS_CALLCONV_STDCALL = 0x2,
  IMAGE_CEE_CS_CALLCONV_THISCALL = 0x3,
  IMAGE_CEE_CS_CALLCONV_FASTCALL = 0x4,
  IMAGE_CEE_CS_CALLCONV_VARARG = 0x5,
  IMAGE_CEE_CS_CALLCONV_FIELD = 0x6,
  IMAGE_CEE_CS_CALLCONV_LOCAL_SIG = 0x7,
  IMAGE_CEE_CS_CALLCONV_PROPERTY = 0x8,
  IMAGE_CEE_CS_CALLCONV_GENERICINST = 0xa,
  IMAGE_CEE_CS_CALLCONV_MASK = 0x0f,
  IMAGE_CEE_CS_CALLCONV_GENERIC = 0x10,
  IMAGE_CEE_CS_CALLCONV_HASTHIS = 0x20,
  IMAGE_CEE_CS_CALLCONV_EXPLICITTHIS = 0x40,
};

// dwOpenFlags for ICorProfilerInfo::GetModuleMetaData: only these two are accepted there.
enum CorOpenFlags : std::uint32_t {
  ofRead = 0x00000000,
  ofWrite = 0x00000001,
};

// ---- Types used by the import interface. ----
using HCORENUM = void*;          // enumerator state; release with CloseEnum
using MDUTF8CSTR = const char*;  // points into the metadata heap, not to be freed
using UVCP_CONSTANT = const void*;

struct COR_FIELD_OFFSET {
  mdFieldDef ridOfField;
  ULONG ulOffset;
};

// Name buffers are counted in WCHARs including the terminating NUL; a name that does not fit is
// cut and CLDB_S_TRUNCATION returned. Every method of these two interfaces is listed, in vtable
// order: the interfaces are sealed, so the order is fixed for good.
struct IMetaDataImport : IUnknown {
  virtual void CLR_STDCALL CloseEnum(HCORENUM hEnum) = 0;
  virtual HRESULT CLR_STDCALL CountEnum(HCORENUM hEnum, ULONG* pulCount) = 0;
  virtual HRESULT CLR_STDCALL ResetEnum(HCORENUM hEnum, ULONG ulPos) = 0;
  virtual HRESULT CLR_STDCALL EnumTypeDefs(HCORENUM* phEnum, mdTypeDef rTypeDefs[], ULONG cMax,
                                           ULONG* pcTypeDefs) = 0;
  virtual HRESULT CLR_STDCALL EnumInterfaceImpls(HCORENUM* phEnum, mdTypeDef td,
                                                 mdInterfaceImpl rImpls[], ULONG cMax,
                                                 ULONG* pcImpls) = 0;
  virtual HRESULT CLR_STDCALL EnumTypeRefs(HCORENUM* phEnum, mdTypeRef rTypeRefs[], ULONG cMax,
                                           ULONG* pcTypeRefs) = 0;
  virtual HRESULT CLR_STDCALL FindTypeDefByName(LPCWSTR szTypeDef, mdToken tkEnclosingClass,
                                                mdTypeDef* ptd) = 0;
  virtual HRESULT CLR_STDCALL GetScopeProps(LPWSTR szName, ULONG cchName, ULONG* pchName,
                                            GUID* pmvid) = 0;
  virtual HRESULT CLR_STDCALL GetModuleFromScope(mdModule* pmd) = 0;
  virtual HRESULT CLR_STDCALL GetTypeDefProps(mdTypeDef td, LPWSTR szTypeDef, ULONG cchTypeDef,
                                              ULONG* pchTypeDef, DWORD* pdwTypeDefFlags,
                                              mdToken* ptkExtends) = 0;
  virtual HRESULT CLR_STDCALL GetInterfaceImplProps(mdInterfaceImpl iiImpl, mdTypeDef* pClass,
                                                    mdToken* ptkIface) = 0;
  virtual HRESULT CLR_STDCALL GetTypeRefProps(mdTypeRef tr, mdToken* ptkResolutionScope,
                                              LPWSTR szName, ULONG cchName, ULONG* pchName) = 0;
  virtual HRESULT CLR_STDCALL ResolveTypeRef(mdTypeRef tr, REFIID riid, IUnknown** ppIScope,
                                             mdTypeDef* ptd) = 0;
  virtual HRESULT CLR_STDCALL EnumMembers(HCORENUM* phEnum, mdTypeDef cl, mdToken rMembers[],
                                          ULONG cMax, ULONG* pcTokens) = 0;
  virtual HRESULT CLR_STDCALL EnumMembersWithName(HCORENUM* phEnum, mdTypeDef cl, LPCWSTR szName,
                                                  mdToken rMembers[], ULONG cMax,
                                                  ULONG* pcTokens) = 0;
  virtual HRESULT CLR_STDCALL EnumMethods(HCORENUM* phEnum, mdTypeDef cl, mdMethodDef rMethods[],
                                          ULONG cMax, ULONG* pcTokens) = 0;
  virtual HRESULT CLR_STDCALL EnumMethodsWithName(HCORENUM* phEnum, mdTypeDef cl, LPCWSTR szName,
                                                  mdMethodDef rMethods[], ULONG cMax,
                                                  ULONG* pcTokens) = 0;
  virtual HRESULT CLR_STDCALL EnumFields(HCORENUM* phEnum, mdTypeDef cl, mdFieldDef rFields[],
                                         ULONG cMax, ULONG* pcTokens) = 0;
  virtual HRESULT CLR_STDCALL EnumFieldsWithName(HCORENUM* phEnum, mdTypeDef cl, LPCWSTR szName,
                                                 mdFieldDef rFields[], ULONG cMax,
                                                 ULONG* pcTokens) = 0;
  virtual HRESULT CLR_STDCALL EnumParams(HCORENUM* phEnum, mdMethodDef mb, mdParamDef rParams[],
                                         ULONG cMax, ULONG* pcTokens) = 0;
  virtual HRESULT CLR_STDCALL EnumMemberRefs(HCORENUM* phEnum, mdToken tkParent,
                                             mdMemberRef rMemberRefs[], ULONG cMax,
                                             ULONG* pcTokens) = 0;
  virtual HRESULT CLR_STDCALL EnumMethodImpls(HCORENUM* phEnum, mdTypeDef td, mdToken rMethodBody[],
                                              mdToken rMethodDecl[], ULONG cMax,
                                              ULONG* pcTokens) = 0;
  virtual HRESULT CLR_STDCALL EnumPermissionSets(HCORENUM* phEnum, mdToken tk, DWORD dwActions,
                                                 mdPermission rPermission[], ULONG cMax,
                                                 ULONG* pcTokens) = 0;
  virtual HRESULT CLR_STDCALL FindMember(mdTypeDef td, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob,
                                         ULONG cbSigBlob, mdToken* pmb) = 0;
  virtual HRESULT CLR_STDCALL FindMethod(mdTypeDef td, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob,
                                         ULONG cbSigBlob, mdMethodDef* pmb) = 0;
  virtual HRESULT CLR_STDCALL FindField(mdTypeDef td, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob,
                                        ULONG cbSigBlob, mdFieldDef* pmb) = 0;
  virtual HRESULT CLR_STDCALL FindMemberRef(mdTypeRef td, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob,
                                            ULONG cbSigBlob, mdMemberRef* pmr) = 0;
  virtual HRESULT CLR_STDCALL GetMethodProps(mdMethodDef mb, mdTypeDef* pClass, LPWSTR szMethod,
                                             ULONG cchMethod, ULONG* pchMethod, DWORD* pdwAttr,
                                             PCCOR_SIGNATURE* ppvSigBlob, ULONG* pcbSigBlob,
                                             ULONG* pulCodeRVA, DWORD* pdwImplFlags) = 0;
  virtual HRESULT CLR_STDCALL GetMemberRefProps(mdMemberRef mr, mdToken* ptk, LPWSTR szMember,
                                                ULONG cchMember, ULONG* pchMember,
                                                PCCOR_SIGNATURE* ppvSigBlob, ULONG* pbSig) = 0;
  virtual HRESULT CLR_STDCALL EnumProperties(HCORENUM* phEnum, mdTypeDef td,
                                             mdProperty rProperties[], ULONG cMax,
                                             ULONG* pcProperties) = 0;
  virtual HRESULT CLR_STDCALL EnumEvents(HCORENUM* phEnum, mdTypeDef td, mdEvent rEvents[],
                                         ULONG cMax, ULONG* pcEvents) = 0;
  // The runtime declares this name buffer (and GetPropertyProps') const although it is written.
  virtual HRESULT CLR_STDCALL GetEventProps(mdEvent ev, mdTypeDef* pClass, LPCWSTR szEvent,
                                            ULONG cchEvent, ULONG* pchEvent, DWORD* pdwEventFlags,
                                            mdToken* ptkEventType, mdMethodDef* pmdAddOn,
                                            mdMethodDef* pmdRemoveOn, mdMethodDef* pmdFire,
                                            mdMethodDef rmdOtherMethod[], ULONG cMax,
                                            ULONG* pcOtherMethod) = 0;
  virtual HRESULT CLR_STDCALL EnumMethodSemantics(HCORENUM* phEnum, mdMethodDef mb,
                                                  mdToken rEventProp[], ULONG cMax,
                                                  ULONG* pcEventProp) = 0;
  virtual HRESULT CLR_STDCALL GetMethodSemantics(mdMethodDef mb, mdToken tkEventProp,
                                                 DWORD* pdwSemanticsFlags) = 0;
  virtual HRESULT CLR_STDCALL GetClassLayout(mdTypeDef td, DWORD* pdwPackSize,
                                             COR_FIELD_OFFSET rFieldOffset[], ULONG cMax,
                                             ULONG* pcFieldOffset, ULONG* pulClassSize) = 0;
  virtual HRESULT CLR_STDCALL GetFieldMarshal(mdToken tk, PCCOR_SIGNATURE* ppvNativeType,
                                              ULONG* pcbNativeType) = 0;
  virtual HRESULT CLR_STDCALL GetRVA(mdToken tk, ULONG* pulCodeRVA, DWORD* pdwImplFlags) = 0;
  virtual HRESULT CLR_STDCALL GetPermissionSetProps(mdPermission pm, DWORD* pdwAction,
                                                    const void** ppvPermission,
                                                    ULONG* pcbPermission) = 0;
  virtual HRESULT CLR_STDCALL GetSigFromToken(mdSignature mdSig, PCCOR_SIGNATURE* ppvSig,
                                              ULONG* pcbSig) = 0;
  virtual HRESULT CLR_STDCALL GetModuleRefProps(mdModuleRef mur, LPWSTR szName, ULONG cchName,
                                                ULONG* pchName) = 0;
  virtual HRESULT CLR_STDCALL EnumModuleRefs(HCORENUM* phEnum, mdModuleRef rModuleRefs[],
                                             ULONG cmax, ULONG* pcModuleRefs) = 0;
  virtual HRESULT CLR_STDCALL GetTypeSpecFromToken(mdTypeSpec typespec, PCCOR_SIGNATURE* ppvSig,
                                                   ULONG* pcbSig) = 0;
  virtual HRESULT CLR_STDCALL GetNameFromToken(mdToken tk, MDUTF8CSTR* pszUtf8NamePtr) = 0;
  virtual HRESULT CLR_STDCALL EnumUnresolvedMethods(HCORENUM* phEnum, mdToken rMethods[],
                                                    ULONG cMax, ULONG* pcTokens) = 0;
  virtual HRESULT CLR_STDCALL GetUserString(mdString stk, LPWSTR szString, ULONG cchString,
                                            ULONG* pchString) = 0;
  virtual HRESULT CLR_STDCALL GetPinvokeMap(mdToken tk, DWORD* pdwMappingFlags, LPWSTR szImportName,
                                            ULONG cchImportName, ULONG* pchImportName,
                                            mdModuleRef* pmrImportDLL) = 0;
  virtual HRESULT CLR_STDCALL EnumSignatures(HCORENUM* phEnum, mdSignature rSignatures[],
                                             ULONG cmax, ULONG* pcSignatures) = 0;
  virtual HRESULT CLR_STDCALL EnumTypeSpecs(HCORENUM* phEnum, mdTypeSpec rTypeSpecs[], ULONG cmax,
                                            ULONG* pcTypeSpecs) = 0;
  virtual HRESULT CLR_STDCALL EnumUserStrings(HCORENUM* phEnum, mdString rStrings[], ULONG cmax,
                                              ULONG* pcStrings) = 0;
  virtual HRESULT CLR_STDCALL GetParamForMethodIndex(mdMethodDef md, ULONG ulParamSeq,
                                                     mdParamDef* ppd) = 0;
  virtual HRESULT CLR_STDCALL EnumCustomAttributes(HCORENUM* phEnum, mdToken tk, mdToken tkType,
                                                   mdCustomAttribute rCustomAttributes[],
                                                   ULONG cMax, ULONG* pcCustomAttributes) = 0;
  virtual HRESULT CLR_STDCALL GetCustomAttributeProps(mdCustomAttribute cv, mdToken* ptkObj,
                                                      mdToken* ptkType, const void** ppBlob,
                                                      ULONG* pcbSize) = 0;
  virtual HRESULT CLR_STDCALL FindTypeRef(mdToken tkResolutionScope, LPCWSTR szName,
                                          mdTypeRef* ptr) = 0;
  virtual HRESULT CLR_STDCALL GetMemberProps(mdToken mb, mdTypeDef* pClass, LPWSTR szMember,
                                             ULONG cchMember, ULONG* pchMember, DWORD* pdwAttr,
                                             PCCOR_SIGNATURE* ppvSigBlob, ULONG* pcbSigBlob,
                                             ULONG* pulCodeRVA, DWORD* pdwImplFlags,
                                             DWORD* pdwCPlusTypeFlag, UVCP_CONSTANT* ppValue,
                                             ULONG* pcchValue) = 0;
  virtual HRESULT CLR_STDCALL GetFieldProps(mdFieldDef mb, mdTypeDef* pClass, LPWSTR szField,
                                            ULONG cchField, ULONG* pchField, DWORD* pdwAttr,
                                            PCCOR_SIGNATURE* ppvSigBlob, ULONG* pcbSigBlob,
                                            DWORD* pdwCPlusTypeFlag, UVCP_CONSTANT* ppValue,
                                            ULONG* pcchValue) = 0;
  virtual HRESULT CLR_STDCALL GetPropertyProps(
      mdProperty prop, mdTypeDef* pClass, LPCWSTR szProperty, ULONG cchProperty, ULONG* pchProperty,
      DWORD* pdwPropFlags, PCCOR_SIGNATURE* ppvSig, ULONG* pbSig, DWORD* pdwCPlusTypeFlag,
      UVCP_CONSTANT* ppDefaultValue, ULONG* pcchDefaultValue, mdMethodDef* pmdSetter,
      mdMethodDef* pmdGetter, mdMethodDef rmdOtherMethod[], ULONG cMax, ULONG* pcOtherMethod) = 0;
  virtual HRESULT CLR_STDCALL GetParamProps(mdParamDef tk, mdMethodDef* pmd, ULONG* pulSequence,
                                            LPWSTR szName, ULONG cchName, ULONG* pchName,
                                            DWORD* pdwAttr, DWORD* pdwCPlusTypeFlag,
                                            UVCP_CONSTANT* ppValue, ULONG* pcchValue) = 0;
  virtual HRESULT CLR_STDCALL GetCustomAttributeByName(mdToken tkObj, LPCWSTR szName,
                                                       const void** ppData, ULONG* pcbData) = 0;
  virtual BOOL CLR_STDCALL IsValidToken(mdToken tk) = 0;
  virtual HRESULT CLR_STDCALL GetNestedClassProps(mdTypeDef tdNestedClass,
                                                  mdTypeDef* ptdEnclosingClass) = 0;
  virtual HRESULT CLR_STDCALL GetNativeCallConvFromSig(const void* pvSig, ULONG cbSig,
                                                       ULONG* pCallConv) = 0;
  virtual HRESULT CLR_STDCALL IsGlobal(mdToken pd, int* pbGlobal) = 0;
};

// Generic parameters (names of T in List<T>), method instantiations and PE facts.
struct IMetaDataImport2 : IMetaDataImport {
  virtual HRESULT CLR_STDCALL EnumGenericParams(HCORENUM* phEnum, mdToken tk,
                                                mdGenericParam rGenericParams[], ULONG cMax,
                                                ULONG* pcGenericParams) = 0;
  virtual HRESULT CLR_STDCALL GetGenericParamProps(mdGenericParam gp, ULONG* pulParamSeq,
                                                   DWORD* pdwParamFlags, mdToken* ptOwner,
                                                   DWORD* reserved, LPWSTR wzname, ULONG cchName,
                                                   ULONG* pchName) = 0;
  virtual HRESULT CLR_STDCALL GetMethodSpecProps(mdMethodSpec mi, mdToken* tkParent,
                                                 PCCOR_SIGNATURE* ppvSigBlob,
                                                 ULONG* pcbSigBlob) = 0;
  virtual HRESULT CLR_STDCALL EnumGenericParamConstraints(
      HCORENUM* phEnum, mdGenericParam tk, mdGenericParamConstraint rGenericParamConstraints[],
      ULONG cMax, ULONG* pcGenericParamConstraints) = 0;
  virtual HRESULT CLR_STDCALL GetGenericParamConstraintProps(mdGenericParamConstraint gpc,
                                                             mdGenericParam* ptGenericParam,
                                                             mdToken* ptkConstraintType) = 0;
  virtual HRESULT CLR_STDCALL GetPEKind(DWORD* pdwPEKind, DWORD* pdwMachine) = 0;
  virtual HRESULT CLR_STDCALL GetVersionString(LPWSTR pwzBuf, DWORD ccBufSize,
                                               DWORD* pccBufSize) = 0;
  virtual HRESULT CLR_STDCALL EnumMethodSpecs(HCORENUM* phEnum, mdToken tk,
                                              mdMethodSpec rMethodSpecs[], ULONG cMax,
                                              ULONG* pcMethodSpecs) = 0;
};

inline constexpr GUID IID_IMetaDataImport =
    guid_from_string("7DAC8207-D3AE-4C75-9B67-92801A497D44");
inline constexpr GUID IID_IMetaDataImport2 =
    guid_from_string("FCE5EFA0-8BBA-4F8E-A036-8F2022B08466");

}  // namespace clr
