#pragma once
// The write side of the metadata API (IMetaDataEmit), as far as instrumenting a method needs it:
// signature tokens for new locals and call sites, type references, and (for the P/Invoke probe
// variant) a new type with P/Invoke methods. The vtable order is the runtime's own (cor.h in
// dotnet/runtime); only a prefix of the interface is declared, up to the last slot called.
// Interfaces the declared methods mention but clrscope never passes are typed as IUnknown*.
#include "clr/metadata.h"

namespace clr {

// Method attributes (CorMethodAttr) and implementation flags (CorMethodImpl).
enum CorMethodAttr : std::uint32_t {
  mdPublic = 0x0006,
  mdStatic = 0x0010,
  mdHideBySig = 0x0080,
  mdAbstract = 0x0400,
  mdPinvokeImpl = 0x2000,
};
enum CorMethodImpl : std::uint32_t {
  miCodeTypeMask = 0x0003,
  miIL = 0x0000,
  miPreserveSig = 0x0080,
  miInternalCall = 0x1000,
};
// P/Invoke map flags (CorPinvokeMap).
enum CorPinvokeMap : std::uint32_t {
  pmNoMangle = 0x0001,
  pmCallConvCdecl = 0x0200,
};

struct IMetaDataEmit : IUnknown {
  virtual HRESULT CLR_STDCALL SetModuleProps(LPCWSTR szName) = 0;
  virtual HRESULT CLR_STDCALL Save(LPCWSTR szFile, DWORD dwSaveFlags) = 0;
  virtual HRESULT CLR_STDCALL SaveToStream(IUnknown* pIStream, DWORD dwSaveFlags) = 0;
  virtual HRESULT CLR_STDCALL GetSaveSize(DWORD fSave, DWORD* pdwSaveSize) = 0;
  virtual HRESULT CLR_STDCALL DefineTypeDef(LPCWSTR szTypeDef, DWORD dwTypeDefFlags, mdToken tkExtends,
                                            mdToken rtkImplements[], mdTypeDef* ptd) = 0;
  virtual HRESULT CLR_STDCALL DefineNestedType(LPCWSTR szTypeDef, DWORD dwTypeDefFlags, mdToken tkExtends,
                                               mdToken rtkImplements[], mdTypeDef tdEncloser, mdTypeDef* ptd) = 0;
  virtual HRESULT CLR_STDCALL SetHandler(IUnknown* pUnk) = 0;
  virtual HRESULT CLR_STDCALL DefineMethod(mdTypeDef td, LPCWSTR szName, DWORD dwMethodFlags,
                                           PCCOR_SIGNATURE pvSigBlob, ULONG cbSigBlob, ULONG ulCodeRVA,
                                           DWORD dwImplFlags, mdMethodDef* pmd) = 0;
  virtual HRESULT CLR_STDCALL DefineMethodImpl(mdTypeDef td, mdToken tkBody, mdToken tkDecl) = 0;
  virtual HRESULT CLR_STDCALL DefineTypeRefByName(mdToken tkResolutionScope, LPCWSTR szName, mdTypeRef* ptr) = 0;
  virtual HRESULT CLR_STDCALL DefineImportType(IUnknown* pAssemImport, const void* pbHashValue, ULONG cbHashValue,
                                               IUnknown* pImport, mdTypeDef tdImport, IUnknown* pAssemEmit,
                                               mdTypeRef* ptr) = 0;
  virtual HRESULT CLR_STDCALL DefineMemberRef(mdToken tkImport, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob,
                                              ULONG cbSigBlob, mdMemberRef* pmr) = 0;
  virtual HRESULT CLR_STDCALL DefineImportMember(IUnknown* pAssemImport, const void* pbHashValue, ULONG cbHashValue,
                                                 IUnknown* pImport, mdToken mbMember, IUnknown* pAssemEmit,
                                                 mdToken tkParent, mdMemberRef* pmr) = 0;
  virtual HRESULT CLR_STDCALL DefineEvent(mdTypeDef td, LPCWSTR szEvent, DWORD dwEventFlags, mdToken tkEventType,
                                          mdMethodDef mdAddOn, mdMethodDef mdRemoveOn, mdMethodDef mdFire,
                                          mdMethodDef rmdOtherMethods[], mdEvent* pmdEvent) = 0;
  virtual HRESULT CLR_STDCALL SetClassLayout(mdTypeDef td, DWORD dwPackSize, COR_FIELD_OFFSET rFieldOffsets[],
                                             ULONG ulClassSize) = 0;
  virtual HRESULT CLR_STDCALL DeleteClassLayout(mdTypeDef td) = 0;
  virtual HRESULT CLR_STDCALL SetFieldMarshal(mdToken tk, PCCOR_SIGNATURE pvNativeType, ULONG cbNativeType) = 0;
  virtual HRESULT CLR_STDCALL DeleteFieldMarshal(mdToken tk) = 0;
  virtual HRESULT CLR_STDCALL DefinePermissionSet(mdToken tk, DWORD dwAction, const void* pvPermission,
                                                  ULONG cbPermission, mdPermission* ppm) = 0;
  virtual HRESULT CLR_STDCALL SetRVA(mdMethodDef md, ULONG ulRVA) = 0;
  virtual HRESULT CLR_STDCALL GetTokenFromSig(PCCOR_SIGNATURE pvSig, ULONG cbSig, mdSignature* pmsig) = 0;
  virtual HRESULT CLR_STDCALL DefineModuleRef(LPCWSTR szName, mdModuleRef* pmur) = 0;
  virtual HRESULT CLR_STDCALL SetParent(mdMemberRef mr, mdToken tk) = 0;
  virtual HRESULT CLR_STDCALL GetTokenFromTypeSpec(PCCOR_SIGNATURE pvSig, ULONG cbSig, mdTypeSpec* ptypespec) = 0;
  virtual HRESULT CLR_STDCALL SaveToMemory(void* pbData, ULONG cbData) = 0;
  virtual HRESULT CLR_STDCALL DefineUserString(LPCWSTR szString, ULONG cchString, mdString* pstk) = 0;
  virtual HRESULT CLR_STDCALL DeleteToken(mdToken tkObj) = 0;
  virtual HRESULT CLR_STDCALL SetMethodProps(mdMethodDef md, DWORD dwMethodFlags, ULONG ulCodeRVA,
                                             DWORD dwImplFlags) = 0;
  virtual HRESULT CLR_STDCALL SetTypeDefProps(mdTypeDef td, DWORD dwTypeDefFlags, mdToken tkExtends,
                                              mdToken rtkImplements[]) = 0;
  virtual HRESULT CLR_STDCALL SetEventProps(mdEvent ev, DWORD dwEventFlags, mdToken tkEventType, mdMethodDef mdAddOn,
                                            mdMethodDef mdRemoveOn, mdMethodDef mdFire,
                                            mdMethodDef rmdOtherMethods[]) = 0;
  virtual HRESULT CLR_STDCALL SetPermissionSetProps(mdToken tk, DWORD dwAction, const void* pvPermission,
                                                    ULONG cbPermission, mdPermission* ppm) = 0;
  virtual HRESULT CLR_STDCALL DefinePinvokeMap(mdToken tk, DWORD dwMappingFlags, LPCWSTR szImportName,
                                               mdModuleRef mrImportDLL) = 0;
  virtual HRESULT CLR_STDCALL SetPinvokeMap(mdToken tk, DWORD dwMappingFlags, LPCWSTR szImportName,
                                            mdModuleRef mrImportDLL) = 0;
  virtual HRESULT CLR_STDCALL DeletePinvokeMap(mdToken tk) = 0;
  virtual HRESULT CLR_STDCALL DefineCustomAttribute(mdToken tkOwner, mdToken tkCtor, const void* pCustomAttribute,
                                                    ULONG cbCustomAttribute, mdCustomAttribute* pcv) = 0;
};

inline constexpr GUID IID_IMetaDataEmit = guid_from_string("BA3FEE4C-ECB9-4E41-83B7-183FA41CD859");

}  // namespace clr
